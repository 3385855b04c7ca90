"""Replay a captured multi-loss graph on a fixed batch and report each loss for the run log."""
import numpy as np

from dispatch_lint import runtime as dispatch


def build_losses(cap):
    pred = dispatch.placeholder((4, 2), device=cap, name="pred")
    target = dispatch.placeholder((4, 2), device=cap, name="target")
    diff = pred - target
    return {
        "mse": (diff * diff).mean(),
        "mae": diff.abs().mean(),
        "max_err": diff.abs().max(),
    }


def main():
    cap = dispatch.Capture()
    losses = build_losses(cap)
    rng = np.random.default_rng(5)
    batch = {
        "pred": rng.normal(size=(4, 2)).astype(np.float32),
        "target": rng.normal(size=(4, 2)).astype(np.float32),
    }
    names = list(losses)
    values = dispatch.replay([losses[n] for n in names], batch)
    replayed = dict(zip(names, values))
    report = []
    for name in sorted(losses):
        report.append((name, round(losses[name].item(), 4)))  # expect: DL003
    assert set(replayed) == set(losses)
    return report


if __name__ == "__main__":
    main()
