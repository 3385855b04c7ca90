"""Run evaluation callbacks on eager and exported losses, replaying traced ones first."""
import functools

import numpy as np

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards

CALLBACKS = []


def callback(fn):
    CALLBACKS.append(fn)
    return fn


def materialize(t, feeds):
    if guards.is_capture(t):
        return dispatch.replay(t, feeds)
    return guards.ensure_not_capture(t, what="eval loss")


@callback
def log_loss(step, loss, history):
    history.setdefault("loss", []).append(loss.item())


@guards.no_capture
@callback
def check_finite(step, loss, history):
    if not np.isfinite(loss.numpy()).all():
        raise FloatingPointError(f"step {step}: loss {loss:.3g}")


def evaluate(x, w, y):
    return ((x @ w - y) ** 2).mean()


def main():
    x_np = np.linspace(0.0, 1.0, 12).reshape(4, 3)
    w = dispatch.tensor([[0.2], [0.1], [-0.3]])
    y = dispatch.tensor([[0.0], [0.5], [1.0], [1.5]])
    cap = dispatch.Capture()
    traced = evaluate(dispatch.placeholder((4, 3), device=cap, name="x"), w.to_device(cap), y.to_device(cap))
    losses = [evaluate(dispatch.tensor(x_np), w, y), traced]
    fix = functools.partial(materialize, feeds={"x": x_np})
    history = {}
    for step, loss in enumerate(map(fix, losses)):
        for cb in CALLBACKS:
            cb(step, loss, history)
    print(f"losses: {history['loss']}")
    return history


if __name__ == "__main__":
    main()
