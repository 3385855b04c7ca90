"""Export a small regression head and log its validation loss, re-raising logging failures."""
import logging

import numpy as np

from dispatch_lint import runtime as dispatch

log = logging.getLogger("export")


def build_head(device):
    w = dispatch.tensor(np.linspace(-1.0, 1.0, 8).reshape(4, 2), device=device)
    b = dispatch.tensor([0.1, -0.2], device=device)
    return w, b


def forward(x, w, b):
    return (x @ w + b).tanh()


def log_validation(step, pred, target):
    loss = ((pred - target) ** 2).mean()
    try:
        value = loss.item()
        log.info("step %d val_loss %.5f", step, value)
    except (ValueError, TypeError):
        log.exception("could not log validation loss at step %d", step)
        raise
    return loss


def main():
    cap = dispatch.Capture()
    w, b = build_head(dispatch.NumPy())
    x = dispatch.placeholder((3, 4), device=cap, name="x")
    target = dispatch.placeholder((3, 2), device=cap, name="y")
    pred = forward(x, w.to_device(cap), b.to_device(cap))
    loss = log_validation(0, pred, target)  # expect: DL003
    program = dispatch.export(pred, loss)
    print(program)


if __name__ == "__main__":
    main()
