"""An optimizer config dataclass that turns its device string into a device in __post_init__."""
from dataclasses import dataclass

from dispatch_lint import runtime as dispatch


@dataclass
class OptimizerConfig:
    lr: float = 0.1
    momentum: float = 0.9
    device: object = "autodiff:numpy"

    def __post_init__(self):
        if isinstance(self.device, str):
            self.device = dispatch.device(self.device)


class Momentum:
    def __init__(self, cfg, shape):
        self.cfg = cfg
        self.velocity = dispatch.zeros(shape)

    def update(self, w, grad):
        self.velocity = self.velocity * self.cfg.momentum + grad
        return (w - self.cfg.lr * self.velocity).require_grad()


def main():
    cfg = OptimizerConfig()
    w = dispatch.rand((2, 2), seed=0, device=cfg.device).require_grad()
    opt = Momentum(cfg, (2, 2))
    loss = (w * w).sum()
    w = opt.update(w, w.grad(loss.backward()))
    print("updated", w.tolist())
    export_cfg = OptimizerConfig(lr=0.0, device="autodiff:capture")  # expect: DL004
    print(export_cfg)


if __name__ == "__main__":
    main()
