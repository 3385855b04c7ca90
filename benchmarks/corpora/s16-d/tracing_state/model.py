"""A two-parameter linear model and its squared-error loss."""

from dispatch_lint import runtime as dispatch

TARGET = 0.25


def init_params(device, width=3):
    weight = dispatch.rand((width, 1), seed=1, device=device).require_grad()
    bias = dispatch.zeros((1,), device=device).require_grad()
    return {"weight": weight, "bias": bias}


def forward(x, params):
    return x @ params["weight"] + params["bias"]


def loss_of(prediction):
    return ((prediction - TARGET) ** 2).mean()


def sgd(params, grads, lr=0.1):
    updated = {}
    for name, value in params.items():
        step = value.grad(grads)
        updated[name] = (value - step * lr).require_grad() if step is not None else value
    return updated


def for_export(params, device):
    return {name: value.inner().to_device(device) for name, value in params.items()}
