"""The loss registry: a name-to-function table filled by the @register_loss decorator."""

import functools

LOSSES = {}


def register_loss(name, *, reduction="mean"):
    def decorate(fn):
        @functools.wraps(fn)
        def reduced(*args, **kwargs):
            per_item = fn(*args, **kwargs)
            return per_item.mean() if reduction == "mean" else per_item.sum()

        if name in LOSSES:
            raise KeyError(f"loss {name!r} registered twice")
        LOSSES[name] = reduced
        return reduced

    return decorate


def get_loss(name):
    try:
        return LOSSES[name]
    except KeyError:
        raise KeyError(f"unknown loss {name!r}; known: {sorted(LOSSES)}") from None
