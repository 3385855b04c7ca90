"""Hook registry: callbacks grouped by event, in registration order."""
import collections
import functools

HOOKS = collections.defaultdict(list)


def on(event):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)
        HOOKS[event].append(wrapper)
        return wrapper
    return decorate


def fire(event, *args, **kwargs):
    return [hook(*args, **kwargs) for hook in HOOKS[event]]
