"""A plain gradient-descent loop that fires step_end callbacks."""
from dispatch_lint import runtime as dispatch

from .registry import fire


def fit(w, x, y, steps=3, lr=0.1):
    for step in range(steps):
        loss = ((x @ w - y) ** 2).mean()
        grads = loss.backward()
        w = (w - lr * w.grad(grads)).require_grad()
        fire("step_end", step=step, loss=loss)
    return w


def trace_loss(w, batch):
    cap = dispatch.Capture()
    x = dispatch.placeholder((batch, 3), device=cap, name="x")
    y = dispatch.placeholder((batch, 1), device=cap, name="y")
    return ((x @ w.inner().to_device(cap) - y) ** 2).mean()
