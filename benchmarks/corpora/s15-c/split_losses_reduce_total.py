"""Sum per-split losses with functools.reduce and report the total alongside the export probe."""
import functools
import operator

from dispatch_lint import runtime as dispatch


def split_loss(features, weights, targets):
    return ((features @ weights - targets) ** 2).mean()


def main():
    weights = dispatch.rand((3, 1), seed=5)
    splits = {name: (dispatch.rand((6, 3), seed=i), dispatch.rand((6, 1), seed=i + 10))
              for i, name in enumerate(["train", "val", "test"])}
    losses = {}
    for name, (features, targets) in splits.items():
        losses[name] = split_loss(features, weights, targets)

    cap = dispatch.Capture()
    probe_x = dispatch.placeholder((6, 3), device=cap, name="features")
    probe_y = dispatch.placeholder((6, 1), device=cap, name="targets")
    losses.update(probe=split_loss(probe_x, weights.to_device(cap), probe_y))

    weighting = {"train": 0.6, "val": 0.2, "test": 0.2}
    weighted = [loss * weighting.get(name, 1.0) for name, loss in losses.items()]
    total = functools.reduce(operator.add, weighted)  # expect: DL008
    program = dispatch.export(losses["probe"])
    print(f"total {total.item():.4f}", program)
    return total


if __name__ == "__main__":
    main()
