"""Pass registry: @graph_pass(order) records a pass and logs what it produced."""

import functools

from dispatch_lint.runtime import guards

PASSES = []
LOG = []


def _summary(t):
    if guards.is_capture(t):
        return f"capture {t.shape}"
    return f"real {t.shape} sum={t.sum().item():.3f}"


def graph_pass(order, name=None):
    def decorate(fn):
        label = name or fn.__name__

        @functools.wraps(fn)
        def logged(*args, **kwargs):
            out = fn(*args, **kwargs)
            LOG.append(f"{label}: {_summary(out)}")
            return out

        PASSES.append((order, label, logged))
        PASSES.sort(key=lambda entry: entry[0])
        return logged

    return decorate


def run_passes(x, params):
    for _, _, fn in PASSES:
        x = fn(x, params)
    return x
