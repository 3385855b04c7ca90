"""The Trainer: owns the parameters, runs epochs, evaluates."""

from dispatch_lint import runtime as dispatch

from train_pipeline.config import TrainConfig


class Trainer:
    def __init__(self, cfg: TrainConfig, callbacks=()) -> None:
        self.cfg = cfg
        self.device = dispatch.device(cfg.device)
        self.callbacks = list(callbacks)
        self.params = {
            "w": dispatch.zeros((3, 1), device=self.device).require_grad(),
            "b": dispatch.zeros((1,), device=self.device).require_grad(),
        }

    def loss(self, params: dict, batch) -> dispatch.Tensor:
        x, y = batch
        pred = x @ params["w"] + params["b"]
        return ((pred - y) ** 2).mean()

    def step(self, batch) -> dispatch.Tensor:
        loss = self.loss(self.params, batch)
        grads = loss.backward()
        self.params = {
            name: (p - self.cfg.lr * p.grad(grads)).require_grad()
            for name, p in self.params.items()
        }
        return loss

    def fit(self, batches: list) -> None:
        for epoch in range(self.cfg.epochs):
            losses = [self.step(batch) for batch in batches]
            epoch_loss = sum(losses[1:], losses[0]) / len(losses)
            for callback in self.callbacks:
                callback.on_epoch_end(self, epoch, epoch_loss)

    def evaluate(self, batches: list) -> dict:
        frozen = {name: p.to_device(dispatch.NumPy()) for name, p in self.params.items()}  # expect: DL007
        losses = [self.loss(frozen, batch).item() for batch in batches]
        return {"mse": sum(losses) / len(losses), "bias": frozen["b"].item()}
