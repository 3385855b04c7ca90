"""A name -> builder registry for model heads and the decorator that fills it."""
import functools

HEADS = {}


def register(name, *, exportable=False):
    def decorate(fn):
        @functools.wraps(fn)
        def builder(*args, **kwargs):
            return fn(*args, **kwargs)
        builder.exportable = exportable
        HEADS[name] = builder
        return builder
    return decorate


def build(name, *args, **kwargs):
    return HEADS[name](*args, **kwargs)
