"""Fine-tune a bias vector with an optimizer that lifts its device from a dataclass config."""
from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class FinetuneConfig:
    steps: int = 2
    lr: float = 0.2
    base_device: dispatch.Device = field(default_factory=dispatch.NumPy)
    train_device: dispatch.Device = field(default_factory=lambda: dispatch.Autodiff(dispatch.NumPy()))


class SGD:
    def __init__(self, device, lr):
        self.device = dispatch.Autodiff(device)
        self.lr = lr

    @staticmethod
    def objective(b):
        return ((b - 1.0) ** 2).sum()

    def step(self, b):
        b = self.device.wrap(b).require_grad()
        grads = self.objective(b).backward()
        return b.inner() - self.lr * b.grad(grads)


def build_optimizer(cfg, device=None):
    return SGD(device or cfg.base_device, cfg.lr)


def main():
    cfg = FinetuneConfig()
    b = dispatch.zeros((4,), device=cfg.base_device)
    opt = build_optimizer(cfg)
    for _ in range(cfg.steps):
        b = opt.step(b)
    tuned = build_optimizer(cfg, device=cfg.train_device)  # expect: DL005
    return b.tolist(), tuned


if __name__ == "__main__":
    main()
