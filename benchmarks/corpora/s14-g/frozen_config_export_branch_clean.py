"""Run one config in train mode and a replaced copy in export mode, sharing the model code."""
import dataclasses
from dataclasses import dataclass

import numpy as np

from dispatch_lint import runtime as dispatch


@dataclass(frozen=True)
class ModeConfig:
    device: str = "autodiff:numpy"
    features: int = 3
    lr: float = 0.1

    @property
    def exporting(self):
        return self.device == "capture"


def forward(x, w):
    return (x @ w).tanh()


def run_mode(cfg: ModeConfig):
    dev = dispatch.device(cfg.device)
    w0 = dispatch.rand((cfg.features, 2), seed=4)
    if cfg.exporting:
        x = dispatch.placeholder((1, cfg.features), device=dev, name="x")
        out = forward(x, w0.to_device(dev))
        result = dispatch.replay(out, {"x": np.ones((1, cfg.features), dtype=np.float32)})
        return result.sum().item()
    x = dispatch.ones((1, cfg.features), device=dev)
    w = w0.to_device(dispatch.NumPy())
    w = dispatch.Autodiff(dispatch.NumPy()).wrap(w).require_grad()
    loss = forward(x, w).sum()
    grads = loss.backward()
    return (w.inner() - cfg.lr * w.grad(grads)).sum().item()


def main():
    train_cfg = ModeConfig()
    export_cfg = dataclasses.replace(train_cfg, device="capture")
    scores = {cfg.device: run_mode(cfg) for cfg in (train_cfg, export_cfg)}
    print(", ".join(f"{k}={v:.4f}" for k, v in scores.items()))
    return scores


if __name__ == "__main__":
    main()
