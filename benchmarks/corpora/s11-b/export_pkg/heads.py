"""Heads that trace their forward pass on a fresh capture device and export it."""
from dispatch_lint import runtime as dispatch

from .registry import exporter


def _trace(weights, batch, activation):
    cap = dispatch.Capture()
    x = dispatch.placeholder((batch, weights.shape[0]), device=cap, name="x")
    return activation(x @ weights.to_device(cap))


@exporter("classifier", batch=4)
def classifier(weights, batch):
    return dispatch.export(_trace(weights, batch, dispatch.sigmoid))


@exporter("regressor", batch=2)
def regressor(weights, batch):
    out = _trace(weights, batch, dispatch.tanh)
    return dispatch.export(out.sum(axis=1))
