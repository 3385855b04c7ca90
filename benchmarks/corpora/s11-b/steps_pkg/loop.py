"""A training loop over a batch generator, calling on_step hooks after each update."""
from dispatch_lint import runtime as dispatch

from .losses import mse


def batches(n, seed=0):
    for i in range(n):
        x = dispatch.rand((8, 3), seed=seed + i)
        yield x, x.sum(axis=1, keepdims=True) * 0.5


def fit(w, update, data, on_step=()):
    for step, (x, y) in enumerate(data):
        loss = mse(x @ w, y)
        w = update(w, loss.backward())
        for hook in on_step:
            hook(step, loss)
    return w


def trace_loss(w, batch):
    cap = dispatch.Capture()
    x = dispatch.placeholder((batch, 3), device=cap, name="x")
    y = dispatch.placeholder((batch, 1), device=cap, name="y")
    return mse(x @ w.inner().to_device(cap), y)
