"""Run SGD steps whose loss passes through a checking helper before the backward pass."""
import numpy as np

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


def checked(t, what):
    guards.ensure_not_capture(t, what=what)
    return t


def loss_fn(w, x, y):
    return ((x @ w - y) ** 2).mean()


def sgd_step(w, x, y, lr=0.1):
    loss = checked(loss_fn(w, x, y), "training loss")
    grads = loss.backward()
    g = w.grad(grads)
    w = dispatch.Autodiff(dispatch.NumPy()).wrap(w.inner() - g * lr).require_grad()
    return w, loss.item()


def export_predictor(w):
    cap = dispatch.Capture()
    x = dispatch.placeholder((1, 2), device=cap, name="x")
    return dispatch.export(x @ w.inner().to_device(cap))


def main():
    dev = dispatch.Autodiff(dispatch.NumPy())
    rng = np.random.default_rng(3)
    x = dispatch.tensor(rng.normal(size=(8, 2)), device=dev)
    y = x.inner() @ dispatch.tensor([[2.0], [-1.0]])
    w = dispatch.zeros((2, 1), device=dev).require_grad()
    for _ in range(5):
        w, loss = sgd_step(w, x, y)
    program = export_predictor(w)
    print(f"loss {loss:.4f}", program.run({"x": [[1.0, 1.0]]}))


if __name__ == "__main__":
    main()
