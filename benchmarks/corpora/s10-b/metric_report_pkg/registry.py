"""Registry of metric reporters keyed by name, filled by the register decorator."""
import functools

REPORTERS = {}


def register(name, *, enabled=True):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)
        if enabled:
            REPORTERS[name] = wrapper
        return wrapper
    return decorate


def run_reporters(metrics, names=None):
    names = names or sorted(REPORTERS)
    return {name: REPORTERS[name](metrics) for name in names}
