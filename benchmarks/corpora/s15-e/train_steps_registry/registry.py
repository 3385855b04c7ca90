"""A name -> step-function registry filled by the steps module."""
import functools

STEPS = {}


def register(name):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)

        STEPS[name] = wrapper
        return wrapper

    return decorate


def get(name):
    from train_steps_registry import steps  # noqa: F401  (fills STEPS)

    try:
        return STEPS[name]
    except KeyError:
        raise KeyError(f"unknown step {name!r}; known: {sorted(STEPS)}") from None
