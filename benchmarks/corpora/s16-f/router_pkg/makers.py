"""Tensor makers per pipeline stage, looked up by name."""

from functools import partial

from dispatch_lint import runtime as dispatch

MAKERS = {
    "eval": partial(dispatch.zeros, device="numpy"),
    "bench": partial(dispatch.ones, device=dispatch.Numba()),
    "trace": lambda shape: dispatch.placeholder(shape, name="tokens"),
}


def make(kind, shape):
    maker = MAKERS.get(kind, MAKERS["eval"])
    t = maker(shape)
    return t * 2.0 + 1.0
