"""Fit a linear model from a generator of losses that also carries the export sanity check."""

import numpy as np

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


class Linear:
    def __init__(self, n_in, seed=0):
        self.w = dispatch.rand((n_in, 1), seed=seed, device=AD).require_grad()

    def loss(self, x, y, w=None):
        w = self.w if w is None else w
        return ((x @ w - y) ** 2).mean()


def batches(n, size, seed=0):
    rng = np.random.default_rng(seed)
    true_w = np.array([[2.0], [-1.0], [0.5]], dtype=np.float32)
    for _ in range(n):
        x = rng.normal(size=(size, 3)).astype(np.float32)
        yield dispatch.from_numpy(x), dispatch.from_numpy(x @ true_w)


def training_losses(model, data):
    for x, y in data:
        yield model.loss(x, y)


def traced_losses(model, size):
    cap = dispatch.Capture()
    x = dispatch.placeholder((size, 3), device=cap, name="x")
    y = dispatch.placeholder((size, 1), device=cap, name="y")
    frozen = model.w.inner().to_device(cap)
    yield model.loss(x, y, w=frozen)


def loss_stream(model, epochs, size):
    for epoch in range(epochs):
        yield from training_losses(model, batches(4, size, seed=epoch))
    yield from traced_losses(model, size)


def fit(model, losses, lr=0.1):
    history = []
    for loss in losses:
        grads = loss.backward()
        model.w = (model.w - model.w.grad(grads) * lr).require_grad()
        history.append(loss.item())
    return history


def main():
    model = Linear(3)
    history = fit(model, loss_stream(model, epochs=3, size=16))  # expect: DL001
    print(f"final loss {history[-1]:.4f} after {len(history)} steps")
