"""Callbacks the trainer calls at the end of every epoch."""


class LossHistory:
    def __init__(self) -> None:
        self.losses: list[float] = []

    def on_epoch_end(self, trainer, epoch: int, loss) -> None:
        self.losses.append(loss.item())


class PrintProgress:
    def __init__(self, every: int = 2) -> None:
        self.every = every

    def on_epoch_end(self, trainer, epoch: int, loss) -> None:
        if epoch % self.every == 0:
            print(f"epoch {epoch}: loss {loss.item():.4f}")
