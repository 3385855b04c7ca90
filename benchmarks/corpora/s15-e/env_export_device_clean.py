"""Train a small regressor, then export it to the device named in the environment."""
import os

from dispatch_lint import runtime as dispatch

EXPORT_DEVICE = os.environ.get("HEAD_EXPORT_DEVICE", "capture")
TRAIN_DEVICE = os.environ.get("HEAD_TRAIN_DEVICE", "autodiff:numpy")


def fit(steps=4, lr=0.2):
    dev = dispatch.device(TRAIN_DEVICE)
    x = dispatch.rand((16, 3), seed=1, device=dev)
    y = dispatch.ones((16, 1), device=dev)
    w = dispatch.zeros((3, 1), device=dev)
    for _ in range(steps):
        w = w.require_grad()
        grads = ((x @ w - y) ** 2).mean().backward()
        w = dev.wrap(w.inner() - lr * w.grad(grads))
    return w.inner()


def export_head(w):
    dev = dispatch.device(EXPORT_DEVICE)
    if not dev.is_capture:
        return {"eager": f"{(dispatch.ones((1, 3), device=dev) @ w.to_device(dev)).sum():.4f}"}
    x = dispatch.placeholder((1, 3), device=dev, name="x")
    out = (x @ w.to_device(dev)).sum()
    value = dispatch.replay([out], {"x": [[1.0, 2.0, 3.0]]})
    return {"captured": repr(out), "check": f"{value:.4f}"}


def main():
    return export_head(fit())


if __name__ == "__main__":
    main()
