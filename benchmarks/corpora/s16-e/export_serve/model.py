"""The scorer's parameters and forward pass, written once for every backend."""

from dispatch_lint import runtime as dispatch


def init_params(seed: int, hidden: int = 6) -> dict:
    return {
        "w1": dispatch.rand((3, hidden), seed=seed) - 0.5,
        "b1": dispatch.zeros((hidden,)),
        "w2": dispatch.rand((hidden, 1), seed=seed + 1) - 0.5,
        "b2": dispatch.full((1,), 0.1),
    }


def forward(params: dict, x: dispatch.Tensor) -> dispatch.Tensor:
    hidden = (x @ params["w1"] + params["b1"]).relu()
    return hidden @ params["w2"] + params["b2"]
