"""Heads that compute eagerly on the NumPy backend."""
from dispatch_lint import runtime as dispatch

from head_registry_build.registry import register


@register("linear")
def linear(feats, width=2):
    w = dispatch.rand((feats.shape[1], width), seed=1)
    return feats @ w


@register("mlp")
def mlp(feats, width=2, hidden=8):
    w1 = dispatch.rand((feats.shape[1], hidden), seed=2)
    w2 = dispatch.rand((hidden, width), seed=3)
    return (feats @ w1).relu() @ w2
