"""Fine-tune a linear probe on a device named in a config loaded from overrides."""
from dataclasses import dataclass, replace

import numpy as np

from dispatch_lint import runtime as dispatch


@dataclass(frozen=True)
class ProbeConfig:
    device: str = "autodiff:numpy"
    lr: float = 0.1
    steps: int = 3


def load_config(overrides):
    cfg = ProbeConfig()
    if "device" in overrides:
        cfg = replace(cfg, device=overrides["device"])
    return cfg


def init_probe(cfg, dim):
    return dispatch.zeros((dim, 1), device=cfg.device).require_grad()


def main():
    cfg = load_config({"device": "autodiff:capture", "steps": 1})
    w = init_probe(cfg, 3)  # expect: DL004
    x = dispatch.tensor(np.ones((4, 3), dtype=np.float32), device=cfg.device)
    for _ in range(cfg.steps):
        loss = ((x @ w) ** 2).mean()
        print(loss)


if __name__ == "__main__":
    main()
