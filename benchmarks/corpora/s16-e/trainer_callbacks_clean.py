"""A Trainer with early-stopping and checkpoint callbacks built from closures."""

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


def make_early_stopping(patience: int):
    best = float("inf")
    waited = 0

    def callback(trainer, loss: float) -> None:
        nonlocal best, waited
        if loss < best - 1e-4:
            best, waited = loss, 0
        else:
            waited += 1
        trainer.stop = waited >= patience

    return callback


def make_checkpointer(store: list):
    def callback(trainer, loss: float) -> None:
        store.append({k: p.inner() for k, p in trainer.params.items()})
    return callback


@guards.no_capture
def sgd_step(params: dict, batch: tuple, lr: float) -> tuple:
    x, y = batch
    loss = ((x @ params["w"] + params["b"] - y) ** 2).mean()
    grads = loss.backward()
    return {k: (p - lr * p.grad(grads)).require_grad() for k, p in params.items()}, loss.item()


class Trainer:
    def __init__(self, device_name: str, lr: float, callbacks: list) -> None:
        self.device = dispatch.Autodiff(dispatch.device(device_name))
        self.params = {
            "w": self.device.wrap(dispatch.zeros((2, 1), device=device_name)).require_grad(),
            "b": self.device.from_inner(dispatch.zeros((1,), device=device_name)).require_grad(),
        }
        self.lr, self.callbacks, self.stop = lr, callbacks, False

    def fit(self, batches: list, max_epochs: int) -> int:
        epoch = 0
        with guards.training():
            while epoch < max_epochs and not self.stop:
                losses = []
                for batch in batches:
                    self.params, loss = sgd_step(self.params, batch, self.lr)
                    losses.append(loss)
                for callback in self.callbacks:
                    callback(self, sum(losses) / len(losses))
                epoch += 1
        return epoch


def main() -> None:
    checkpoints: list = []
    x = dispatch.rand((12, 2), seed=5, device="numba")
    batches = [(x, x @ dispatch.tensor([[3.0], [-1.0]], device="numba") + 1.0)]
    trainer = Trainer("numba", 0.3, [make_early_stopping(3), make_checkpointer(checkpoints)])
    epochs = trainer.fit(batches, max_epochs=40)
    print(f"stopped after {epochs} epochs, bias {checkpoints[-1]['b'].item():.3f}")


if __name__ == "__main__":
    main()
