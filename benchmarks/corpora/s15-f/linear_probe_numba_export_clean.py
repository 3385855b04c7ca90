"""Fit a linear probe, export it with its weights as constants, and check the Numba replay."""
import numpy as np

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


def train_probe(features, labels, epochs=15, lr=0.1):
    dev = dispatch.device("autodiff:numpy")
    w = dispatch.zeros((4, 2), device=dev)
    feats, target = dev.from_inner(features), dev.from_inner(labels)
    with guards.training():
        for _ in range(epochs):
            w = w.require_grad()
            loss = ((feats @ w).sigmoid() - target).abs().mean()
            w = w - lr * w.grad(loss.backward())
    return w.inner()


def export_probe(w, batch):
    cap = dispatch.Capture()
    x = dispatch.placeholder((batch, 4), device=cap, name="x")
    probs = (x @ w.to_device(cap)).sigmoid()
    probs = probs.to_device(cap)
    return dispatch.export(probs, probs.max(axis=1))


def main():
    features = dispatch.rand((6, 4), seed=11)
    labels = dispatch.rand((6, 2), seed=12)
    w = train_probe(features, labels)
    program = export_probe(w, 6)
    probs, top = program.run({"x": features.numpy()}, device=dispatch.Numba())
    expected = 1.0 / (1.0 + np.exp(-(features.numpy() @ w.numpy())))
    if not np.allclose(probs.numpy(), expected, atol=1e-5):
        raise AssertionError("Numba replay disagrees with the NumPy reference")
    return float(top.max())


if __name__ == "__main__":
    main()
