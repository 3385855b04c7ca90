"""Run a train -> export -> serve pipeline whose stages are looked up in a registry."""

import argparse

from dispatch_lint import runtime as dispatch

STAGES: dict = {}


def stage(name: str):
    def register(fn):
        STAGES[name] = fn
        return fn
    return register


@stage("train")
def train_stage(state: dict, cfg: argparse.Namespace) -> dict:
    dev = dispatch.device(cfg.train_device)
    x, y = state["data"]
    w = dispatch.zeros((2, 1), device=dev).require_grad()
    for _ in range(cfg.steps):
        grads = ((x @ w - y) ** 2).mean().backward()
        w = (w - cfg.lr * w.grad(grads)).require_grad()
    return {**state, "weights": w.inner()}


@stage("export")
def export_stage(state: dict, cfg: argparse.Namespace) -> dict:
    cap = dispatch.device("capture")
    x = dispatch.placeholder((cfg.batch, 2), device=cap, name="x")
    scores = (x @ state["weights"].to_device(cap)).tanh()
    return {**state, "outputs": {"scores": scores}}


@stage("serve")
def serve_stage(state: dict, cfg: argparse.Namespace) -> dict:
    served = {k: v.to_device(cfg.serve_device) for k, v in state["outputs"].items()}
    return {**state, "served": served}


def main() -> None:
    cfg = argparse.Namespace(train_device="autodiff:numpy", serve_device="numba",
                             steps=30, lr=0.2, batch=5, pipeline=["train", "export", "serve"])
    x = dispatch.rand((20, 2), seed=3)
    state = {"data": (x, x @ dispatch.tensor([[2.0], [-1.0]]))}
    for name in cfg.pipeline:
        state = STAGES[name](state, cfg)  # expect: DL002
    print("served:", sorted(state["served"]))


if __name__ == "__main__":
    main()
