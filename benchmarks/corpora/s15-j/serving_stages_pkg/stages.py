"""Serving pipeline stages, registered by name."""
import functools

from dispatch_lint import runtime as dispatch

STAGES = {}


def stage(name):
    def register(fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            return fn(*args, **kwargs)
        STAGES[name] = run
        return run
    return register


@stage("normalize")
def normalize(x):
    return (x - x.mean()) / (x.abs().max() + 1e-6)


@stage("score")
def score(x):
    return x.sigmoid().sum(axis=-1)


@stage("host")
def to_host(x):
    return x.to_device(dispatch.NumPy())
