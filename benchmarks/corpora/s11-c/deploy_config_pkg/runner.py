"""Run one deployment: a traced forward pass or an eager one."""
from dispatch_lint import runtime as dispatch


def run(dev, weights):
    if dev.is_capture:
        x = dispatch.placeholder((2, 3), device=dev, name="x")
        return repr((x @ weights.to_device(dev)).sum())
    x = dispatch.ones((2, 3), device=dev)
    w = weights.to_device(dev) if not dev.is_autodiff else dispatch.Autodiff(dispatch.NumPy()).wrap(weights)
    return f"{(x @ w).sum():.3f}"
