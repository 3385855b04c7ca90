"""The step registry and the decorator that fills it."""
import functools
import logging

log = logging.getLogger(__name__)

STEPS = {}


def register(name):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            log.debug("running step %s", name)
            return fn(*args, **kwargs)

        STEPS[name] = wrapper
        return wrapper

    return decorate
