"""Fit a linear probe with weights placed on the device from a shared trainer config."""
from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class TrainerConfig:
    lr: float = 0.1
    steps: int = 3
    # The same config object drives export, so it defaults to a capture device.
    device: dispatch.Device = field(default_factory=dispatch.Capture)
    tags: list = field(default_factory=lambda: ["probe"])

    @classmethod
    def for_training(cls, **overrides):
        return cls(device=dispatch.Autodiff(dispatch.NumPy()), **overrides)


def main():
    cfg = TrainerConfig(steps=2)
    x = dispatch.rand((8, 3), seed=0)
    y = dispatch.rand((8,), seed=1)
    w = dispatch.zeros((3,), device=cfg.device)
    for _ in range(cfg.steps):
        pred = (x.to_device(cfg.device) * w).sum(axis=1)
        loss = ((pred - y.to_device(cfg.device)) ** 2).mean()
        grads = loss.backward()  # expect: DL001
        w = (w - cfg.lr * w.grad(grads)).require_grad()
    print(cfg.tags, w)


if __name__ == "__main__":
    main()
