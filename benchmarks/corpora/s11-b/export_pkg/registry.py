"""The exporter registry."""
import functools

EXPORTERS = {}


def exporter(name, **defaults):
    def decorator(fn):
        EXPORTERS[name] = functools.partial(fn, **defaults)
        return fn

    return decorator
