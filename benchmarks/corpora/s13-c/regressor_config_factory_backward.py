"""Fit a linear regressor from a config, then reuse the trainer on the export variant."""
from dataclasses import dataclass, replace

from dispatch_lint import runtime as dispatch


@dataclass
class RegressorConfig:
    in_features: int = 3
    lr: float = 0.1
    device: str = "autodiff:numpy"


class Regressor:
    def __init__(self, weight, device):
        self.weight = weight
        self._device = device

    @classmethod
    def from_config(cls, cfg):
        dev = dispatch.device(cfg.device)
        return cls(dispatch.full((cfg.in_features, 1), 0.5, device=dev), dev)

    @property
    def device(self):
        return self._device

    def forward(self, x):
        return x @ self.weight


class Trainer:
    def __init__(self, model, lr):
        self.model = model
        self.lr = lr

    def _loss(self, x, y):
        return ((self.model.forward(x) - y) ** 2).mean()

    def fit_step(self, x, y):
        self.model.weight = self.model.weight.require_grad()
        grads = self._loss(x, y).backward()
        step = self.model.weight.grad(grads)
        self.model.weight = self.model.weight.inner() - self.lr * step
        return self.model.weight


def main():
    cfg = RegressorConfig()
    model = Regressor.from_config(cfg)
    x = dispatch.rand((8, cfg.in_features), seed=1, device=model.device)
    w = Trainer(model, cfg.lr).fit_step(x, dispatch.zeros((8, 1)))
    export_model = Regressor.from_config(replace(cfg, device="capture"))
    xp = dispatch.placeholder((8, cfg.in_features), device=export_model.device, name="x")
    yp = dispatch.placeholder((8, 1), device=export_model.device, name="y")
    Trainer(export_model, cfg.lr).fit_step(xp, yp)  # expect: DL001
    return w


if __name__ == "__main__":
    main()
