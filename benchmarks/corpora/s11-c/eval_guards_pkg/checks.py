"""Small guard helpers shared by the evaluation scripts."""
from dispatch_lint.runtime import guards


def traced(t):
    return guards.is_capture(t)


def real(t, what="metric"):
    guards.ensure_not_capture(t, what=what)
    return t
