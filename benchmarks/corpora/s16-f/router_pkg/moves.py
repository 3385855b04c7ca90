"""Moves onto the serving device."""


def to_serving(t, target):
    if t.device == target:
        return t
    return t.to_device(target)


def describe(t):
    return f"{tuple(t.shape)} on {t.device!r}"
