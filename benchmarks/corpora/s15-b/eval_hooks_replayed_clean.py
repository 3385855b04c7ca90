"""Register end-of-run report hooks for training and export, then print every report."""
import numpy as np

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def train_hook(w, x):
    loss = ((x @ w) - 1.0).abs().mean()
    grads = loss.backward()
    step = w.grad(grads)
    return lambda: f"train loss {loss.inner().item():.4f}, |g| {step.abs().sum().item():.4f}"


def export_hook(w):
    cap = dispatch.Capture()
    x = dispatch.placeholder((2, 3), device=cap, name="x")
    y = (x @ w.to_device(cap)).relu()
    sample = np.full((2, 3), 0.5, dtype=np.float32)

    def report():
        out = dispatch.replay(y, {"x": sample})
        return f"export max {out.max().item():.4f}"
    return report


def main():
    w = AD.wrap(dispatch.rand((3, 2), seed=11)).require_grad()
    x = dispatch.rand((4, 3), seed=12, device=AD)
    hooks = {}
    hooks["train"] = train_hook(w, x)
    hooks["export"] = export_hook(w.inner())
    lines = [hooks[name]() for name in sorted(hooks)]
    print("\n".join(lines))
    return lines


if __name__ == "__main__":
    main()
