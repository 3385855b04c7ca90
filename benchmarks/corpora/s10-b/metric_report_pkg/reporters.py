"""Reporters that turn metric tensors into log lines."""
from metric_report_pkg.registry import register


@register("shapes")
def report_shapes(metrics):
    return {k: tuple(v.shape) for k, v in metrics.items()}


@register("repr")
def report_repr(metrics):
    return {k: repr(v) for k, v in metrics.items()}


@register("scalars")
def report_scalars(metrics):
    return {k: round(float(v), 4) for k, v in metrics.items()}
