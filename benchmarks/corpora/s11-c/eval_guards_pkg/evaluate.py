"""Metric collection over dicts of named tensors."""
import logging

from eval_guards_pkg.checks import real, traced

log = logging.getLogger(__name__)


def collect(named):
    values = {}
    for key, t in named.items():
        if traced(t):
            log.info("%s is traced: %s", key, t)
            continue
        values[key] = real(t, what=key).item()
    return values


def render(values, precision=3):
    return ", ".join(f"{k}={v:.{precision}f}" for k, v in values.items())
