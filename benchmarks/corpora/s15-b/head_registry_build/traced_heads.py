"""Heads recorded on a capture device so that they can be exported."""
from dispatch_lint import runtime as dispatch

from head_registry_build import registry


@registry.register("linear_export", exportable=True)
def linear_export(feats, width=2):
    cap = dispatch.Capture()
    x = dispatch.placeholder(feats.shape, device=cap, name="feats")
    w = dispatch.rand((feats.shape[1], width), seed=1).to_device(cap)
    return x @ w
