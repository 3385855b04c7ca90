"""Input passes: standardize features with the training statistics."""

from .registry import graph_pass


@graph_pass(order=10)
def standardize(x, params):
    return (x - params["mean"]) / params["std"]
