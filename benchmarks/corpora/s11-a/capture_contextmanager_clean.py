"""Trace a loss inside a contextmanager that hands out a capture device, then log the replayed loss."""
import contextlib

import numpy as np

from dispatch_lint import runtime as dispatch


@contextlib.contextmanager
def capturing(tag):
    dev = dispatch.Capture()
    print(f"[{tag}] capture on {dev!r}")
    try:
        yield dev
    finally:
        print(f"[{tag}] graph closed")


def mse(pred, target):
    diff = pred - target
    return (diff * diff).mean()


def main():
    w = dispatch.rand((3, 1), seed=0)
    with capturing("loss") as dev:
        x = dispatch.placeholder((5, 3), device=dev, name="x")
        y = dispatch.placeholder((5, 1), device=dev, name="y")
        loss = mse(x @ w.to_device(dev), y)
    print(f"traced {loss}")
    inputs = {"x": np.ones((5, 3), np.float32), "y": np.zeros((5, 1), np.float32)}
    loss = dispatch.replay(loss, inputs)
    print("loss value", loss.item())


if __name__ == "__main__":
    main()
