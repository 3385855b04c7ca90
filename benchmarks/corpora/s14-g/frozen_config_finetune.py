"""Fine-tune a small regressor from a frozen run config, with an export variant of the config."""
import dataclasses
from dataclasses import dataclass

from dispatch_lint import runtime as dispatch


@dataclass(frozen=True)
class RunConfig:
    device: str = "autodiff:numpy"
    lr: float = 0.05
    steps: int = 3
    width: int = 4


class Regressor:
    def __init__(self, cfg: RunConfig):
        dev = dispatch.device(cfg.device)
        self.w = dispatch.rand((cfg.width, 1), seed=7, device=dev).require_grad()
        self.lr = cfg.lr

    def step(self, x, y):
        pred = x @ self.w
        loss = ((pred - y) ** 2).mean()
        grads = loss.backward()
        self.w = (self.w.inner() - self.lr * self.w.grad(grads))
        return loss


def run(cfg: RunConfig):
    model = Regressor(cfg)
    dev = dispatch.device(cfg.device)
    x = dispatch.ones((5, cfg.width), device=dev)
    y = dispatch.zeros((5, 1), device=dev)
    for _ in range(cfg.steps):
        model.step(x, y)
        model.w = dispatch.Autodiff(dispatch.NumPy()).wrap(model.w).require_grad()
    return model


def main():
    base = RunConfig()
    trained = run(base)
    export_cfg = dataclasses.replace(base, device="capture", steps=1)
    run(export_cfg)  # expect: DL001
    return trained


if __name__ == "__main__":
    main()
