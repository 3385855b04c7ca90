"""Predicates and guards shared by the exporter and the logger."""
from dispatch_lint.runtime import guards


def is_symbolic(t):
    return guards.is_capture(t)


def concrete(t, what="value"):
    guards.ensure_not_capture(t, what=what)
    return t
