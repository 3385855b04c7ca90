"""Train on the configured device and export on the capture device; dry runs stay off."""
from dataclasses import dataclass

from dispatch_lint import runtime as dispatch


@dataclass
class RunConfig:
    train_device: str = "autodiff:numpy"
    export_device: str = "capture"
    lr: float = 0.1
    dry_run: bool = False


class Model:
    def __init__(self, weight):
        self.weight = weight

    def forward(self, x):
        return (x @ self.weight).tanh()


class Runner:
    def __init__(self, cfg):
        self.cfg = cfg

    def step(self, model, x):
        loss = (model.forward(x) ** 2).mean()
        if self.cfg.dry_run or not loss.is_autodiff:
            return model, loss
        grads = loss.backward()
        return Model(dispatch.Autodiff(dispatch.NumPy()).wrap(
            model.weight.inner() - self.cfg.lr * model.weight.grad(grads)).require_grad()), loss


def main():
    cfg = RunConfig()
    runner = Runner(cfg)
    train_dev = dispatch.device(cfg.train_device)
    model = Model(dispatch.rand((3, 1), seed=3, device=train_dev).require_grad())
    model, loss = runner.step(model, dispatch.ones((2, 3), device=train_dev))
    export_dev = dispatch.device(cfg.export_device)
    frozen = Model(model.weight.inner().to_device(export_dev))
    _, traced = runner.step(frozen, dispatch.placeholder((2, 3), device=export_dev, name="x"))
    program = dispatch.export(traced)
    return loss.item(), program


if __name__ == "__main__":
    main()
