"""A Trainer built from a dataclass config through a classmethod factory."""

from dataclasses import dataclass

from dispatch_lint import runtime as dispatch


@dataclass
class TrainConfig:
    device: str = "numba"
    lr: float = 0.3
    epochs: int = 6
    seed: int = 11


def training_device(name: str) -> dispatch.Device:
    """Training always needs gradients, so resolve the name to its autodiff device."""
    return dispatch.device(f"autodiff:{name}")


def init_params(seed: int, device: dispatch.Device) -> dict:
    return {"w": dispatch.rand((4, 2), seed=seed, device=device) * 0.1,
            "b": dispatch.zeros((2,), device=device)}


class Trainer:
    def __init__(self, params: dict, device: dispatch.Device, lr: float) -> None:
        self.device = dispatch.Autodiff(device)
        self.params = {k: self.device.wrap(p).require_grad() for k, p in params.items()}
        self.lr = lr
        self.history: list[float] = []

    @classmethod
    def from_config(cls, cfg: TrainConfig) -> "Trainer":
        params = init_params(cfg.seed, dispatch.device(cfg.device))
        return cls(params, training_device(cfg.device), cfg.lr)  # expect: DL005

    def step(self, x: dispatch.Tensor, y: dispatch.Tensor) -> None:
        logits = x @ self.params["w"] + self.params["b"]
        loss = ((logits.sigmoid() - y) ** 2).mean()
        grads = loss.backward()
        self.params = {k: (p - self.lr * p.grad(grads)).require_grad()
                       for k, p in self.params.items()}
        self.history.append(loss.item())


def main() -> None:
    cfg = TrainConfig()
    trainer = Trainer.from_config(cfg)
    x = dispatch.rand((16, 4), seed=2, device=cfg.device)
    y = (x @ dispatch.tensor([[1.0, -1.0]] * 4, device=cfg.device) > 0.0).astype("float32")
    for _ in range(cfg.epochs):
        trainer.step(x, y)
    print(f"loss {trainer.history[0]:.4f} -> {trainer.history[-1]:.4f}")


if __name__ == "__main__":
    main()
