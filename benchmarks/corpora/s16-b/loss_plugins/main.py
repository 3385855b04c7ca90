"""Train a linear regressor with the loss named in the config, looked up in the registry."""

from dispatch_lint import runtime as dispatch

from . import losses  # noqa: F401  (fills the registry)
from .data import make_batch
from .registry import get_loss

CONFIG = {"loss": "huber", "model_device": "autodiff:numpy", "target_device": "numba", "lr": 0.1}


def main():
    cfg = dict(CONFIG)
    loss_fn = get_loss(cfg["loss"])
    x, y = make_batch(64, cfg)
    w = dispatch.zeros((4, 1), device=cfg["model_device"]).require_grad()
    for step in range(10):
        pred = x @ w
        loss = loss_fn(pred, y, delta=0.5)  # expect: DL008
        grads = loss.backward()
        w = (w - w.grad(grads) * cfg["lr"]).require_grad()
    print(f"{cfg['loss']} loss {loss.item():.4f}")
