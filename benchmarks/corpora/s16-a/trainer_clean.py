"""Train with a momentum trainer subclass configured by dataclass device factories."""

from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


@dataclass
class TrainerConfig:
    lr: float = 0.05
    steps: int = 4
    momentum: float = 0.9
    device: dispatch.Device = field(default_factory=lambda: dispatch.Autodiff(dispatch.NumPy()))
    eval_device: str = "numba"


class Trainer:
    def __init__(self, config: TrainerConfig, width: int) -> None:
        self.config = config
        self.weight = dispatch.rand((width, 1), seed=9, device=config.device).require_grad()
        self.losses: list[float] = []

    @property
    def last_loss(self) -> float:
        return self.losses[-1] if self.losses else float("nan")

    def apply(self, grad: dispatch.Tensor) -> None:
        step = dispatch.Autodiff(dispatch.NumPy()).wrap(grad) * self.config.lr
        self.weight = (self.weight - step).require_grad()

    def step(self, x: dispatch.Tensor, y: dispatch.Tensor) -> None:
        loss = ((x @ self.weight - y) ** 2).mean()
        grads = loss.backward()
        self.apply(self.weight.grad(grads))
        self.losses.append(loss.item())


class MomentumTrainer(Trainer):
    def __init__(self, config: TrainerConfig, width: int) -> None:
        super().__init__(config, width)
        self.velocity = dispatch.zeros((width, 1))

    def apply(self, grad: dispatch.Tensor) -> None:
        self.velocity = self.velocity * self.config.momentum + grad
        super().apply(self.velocity)


def main() -> None:
    config = TrainerConfig()
    trainer = MomentumTrainer(config, width=3)
    x = dispatch.rand((12, 3), seed=1, device=config.device)
    y = x.sum(axis=1, keepdims=True) * 0.25
    with guards.training():
        for _ in range(config.steps):
            trainer.step(x, y)
    print(f"final loss {trainer.last_loss:.4f}")
    served = trainer.weight.inner().to_device(config.eval_device)
    batch = dispatch.rand((2, 3), seed=2, device=config.eval_device)
    print("eval", (batch @ served).tolist())


if __name__ == "__main__":
    main()
