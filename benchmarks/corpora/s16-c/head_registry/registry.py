"""A registry of scoring heads, each with the device it runs on."""

HEADS = {}


def register(name, device="numpy", weight=1.0):
    def decorate(fn):
        HEADS[name] = {"fn": fn, "device": device, "weight": weight}
        return fn

    return decorate


def lookup(names):
    return [(name, HEADS[name]) for name in names if name in HEADS]
