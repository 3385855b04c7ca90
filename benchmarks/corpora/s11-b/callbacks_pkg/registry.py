"""The callback registry, filled by the @callback decorator."""

CALLBACKS = {}


def callback(event):
    def decorator(fn):
        CALLBACKS.setdefault(event, []).append(fn)
        return fn

    return decorator


def fire(event, **payload):
    for fn in CALLBACKS.get(event, []):
        fn(**payload)
