"""The active device, switched by name for the whole process or for a block."""
import contextlib

from dispatch_lint import runtime as dispatch

_ACTIVE = dispatch.NumPy()


def activate(name):
    global _ACTIVE
    _ACTIVE = dispatch.device(name)
    return _ACTIVE


def active():
    return _ACTIVE


@contextlib.contextmanager
def using(name):
    global _ACTIVE
    saved = _ACTIVE
    _ACTIVE = dispatch.device(name)
    try:
        yield _ACTIVE
    finally:
        _ACTIVE = saved
