"""Output helpers for exported heads."""
from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards

from export_helpers_pkg import config


def parse_device(name):
    return dispatch.device(name.strip().lower())


def is_traced(t):
    return guards.is_capture(t)


def host_value(t):
    return guards.ensure_not_capture(t, what="the exported output")


def render(t):
    return f"{host_value(t):{config.PRECISION}}"
