"""The built-in scoring heads: a linear probe, a gated head and a fused numba head."""

from dispatch_lint import runtime as dispatch

from head_registry.registry import register


@register("linear")
def linear(x, dev):
    w = dispatch.rand((x.shape[1], 1), seed=1, device=dev)
    return x.to_device(dev) @ w


@register("gated", weight=0.5)
def gated(x, dev):
    h = x.to_device(dev)
    gate = dispatch.rand((x.shape[1], 1), seed=2, device=dev)
    return (h @ gate).sigmoid() * h.mean(axis=1, keepdims=True)


@register("fused", device="numba", weight=0.25)
def fused(x, dev):
    h = x.to_device(dev)
    return (h * 2.0 - 1.0).tanh().sum(axis=1, keepdims=True)
