"""Model passes: the linear layer and the sigmoid head."""

from .registry import graph_pass


@graph_pass(order=20, name="linear")
def dense(x, params):
    return x @ params["w"] + params["b"]


@graph_pass(order=30)
def sigmoid_head(x, params):
    return x.sigmoid()
