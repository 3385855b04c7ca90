"""Track a training loss eagerly and an evaluation loss in a capture graph, then report."""

from dispatch_lint import runtime as dispatch
from stats_pkg.metrics import RunningMean, TracedMean
from stats_pkg.report import format_row, header


def batches(n: int, seed: int = 0):
    for i in range(n):
        yield dispatch.rand((4, 3), seed=seed + i), dispatch.rand((4, 3), seed=100 + i)


def main() -> None:
    train = RunningMean()
    for pred, target in batches(3):
        train.update((pred - target) ** 2)
    rows = [header(), format_row("train", train)]

    evaluation = TracedMean()
    pred = dispatch.placeholder((4, 3), device=evaluation.device, name="pred")
    target = dispatch.placeholder((4, 3), device=evaluation.device, name="target")
    evaluation.update((pred - target) ** 2)
    program = dispatch.export(evaluation.value)
    replayed = program.run({"pred": [[1.0] * 3] * 4, "target": [[0.5] * 3] * 4})
    rows.append(f"{'replayed':<10} mean={replayed.item():.4f}")
    rows.append(format_row("eval", evaluation))  # expect: DL003
    print("\n".join(rows))


if __name__ == "__main__":
    main()
