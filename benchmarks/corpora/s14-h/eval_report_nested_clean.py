"""Build a nested per-split, per-metric eval report and format the real entries."""
import numpy as np

from dispatch_lint import runtime as dispatch


def real_only(t):
    return not dispatch.is_capture(t)


def evaluate(w, x, y):
    pred = x @ w
    return {"mse": ((pred - y) ** 2).mean(), "mae": (pred - y).abs().mean()}


def main():
    w = dispatch.rand((3, 1), seed=21)
    splits = {name: (dispatch.rand((5, 3), seed=s), dispatch.rand((5, 1), seed=s + 1))
              for s, name in enumerate(["train", "val"])}
    report = {}
    for split, (x, y) in splits.items():
        for metric, value in evaluate(w, x, y).items():
            report.setdefault(split, {}).setdefault(metric, []).append((0, value))

    cap = dispatch.Capture()
    xs = dispatch.placeholder((5, 3), device=cap, name="x")
    ys = dispatch.placeholder((5, 1), device=cap, name="y")
    traced = evaluate(w.to_device(cap), xs, ys)
    report.update({"export": {m: [(0, v)] for m, v in traced.items()}})

    program = dispatch.export(traced["mse"])
    replayed = program.run({"x": np.ones((5, 3), np.float32), "y": np.zeros((5, 1), np.float32)})
    report["export"]["mse"].append((1, replayed))

    lines = []
    for split, metrics in report.items():
        for metric, entries in metrics.items():
            values = [f"{v:.4f}" for _, v in entries if real_only(v)]
            lines.append(f"{split}/{metric}: {', '.join(values) or 'traced'}")
    total = sum(len(entries) for metrics in report.values() for entries in metrics.values())
    return lines, total


if __name__ == "__main__":
    main()
