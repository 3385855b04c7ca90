"""Fit a linear model built from a dataclass training config through a classmethod."""

from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class TrainConfig:
    n_in: int = 3
    n_out: int = 1
    lr: float = 0.1
    steps: int = 5
    device: str = "numpy"
    seeds: list[int] = field(default_factory=lambda: [7, 11])


@dataclass
class Linear:
    weight: dispatch.Tensor
    bias: dispatch.Tensor

    @classmethod
    def create(cls, config: TrainConfig) -> "Linear":
        w_seed, b_seed = config.seeds
        weight = dispatch.rand((config.n_in, config.n_out), seed=w_seed, device=config.device)
        bias = dispatch.rand((config.n_out,), seed=b_seed, device=config.device)
        if weight.is_autodiff:
            weight, bias = weight.require_grad(), bias.require_grad()
        return cls(weight, bias)

    @property
    def device(self) -> dispatch.Device:
        return self.weight.device

    def __call__(self, x: dispatch.Tensor) -> dispatch.Tensor:
        return x @ self.weight + self.bias

    @staticmethod
    def mse(pred: dispatch.Tensor, target: dispatch.Tensor) -> dispatch.Tensor:
        return ((pred - target) ** 2).mean()


def make_batch(config: TrainConfig, device: dispatch.Device):
    x = dispatch.rand((16, config.n_in), seed=0, device=device)
    y = (x.sum(axis=1, keepdims=True) * 0.5).sigmoid()
    return x, y


def main() -> None:
    config = TrainConfig(steps=3)
    model = Linear.create(config)
    x, y = make_batch(config, model.device)
    for step in range(config.steps):
        loss = Linear.mse(model(x), y)
        grads = loss.backward()  # expect: DL006
        gw, gb = model.weight.grad(grads), model.bias.grad(grads)
        model = Linear(
            (model.weight - config.lr * gw).require_grad(),
            (model.bias - config.lr * gb).require_grad(),
        )
        print(step, loss)


if __name__ == "__main__":
    main()
