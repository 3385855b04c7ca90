"""Collects per-split evaluation losses from delegating generators and prints a summary."""
from dispatch_lint import runtime as dispatch


def split_losses(name, w, batches):
    for x, y in batches:
        yield name, ((x @ w - y) ** 2.0).mean()


def all_splits(splits):
    for name, (w, batches) in splits.items():
        yield from split_losses(name, w, batches)


def real_batches(seed, n):
    return [(dispatch.rand((5, 3), seed=seed + i), dispatch.zeros((5,))) for i in range(n)]


def main():
    w = dispatch.rand((3,), seed=42)
    cap = dispatch.Capture()
    traced = [(dispatch.placeholder((5, 3), device=cap, name="x"),
               dispatch.placeholder((5,), device=cap, name="y"))]
    splits = {
        "train": (w, real_batches(0, 2)),
        "val": (w, real_batches(10, 1)),
        "export": (w.to_device(cap), traced),
    }
    totals = {}
    for name, loss in all_splits(splits):
        totals[name] = totals.get(name, 0.0) + loss.item()  # expect: DL003
    print({k: round(v, 3) for k, v in totals.items()})
    return totals


if __name__ == "__main__":
    main()
