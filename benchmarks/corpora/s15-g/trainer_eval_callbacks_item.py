"""Fit a linear probe with a callback-driven Trainer, then trace its evaluation for export."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


class LossHistory:
    def __init__(self):
        self.values = []

    def on_batch_end(self, trainer, loss):
        self.values.append(loss.item())


class Trainer:
    def __init__(self, weight, callbacks=(), lr=0.1):
        self.weight = weight
        self.callbacks = list(callbacks)
        self.lr = lr

    def _fire(self, event, *args):
        for cb in self.callbacks:
            hook = getattr(cb, event, None)
            if hook is not None:
                hook(self, *args)

    def fit_batch(self, x, y):
        w = AD.wrap(self.weight).require_grad()
        loss = ((AD.wrap(x) @ w - AD.wrap(y)) ** 2).mean()
        grads = loss.backward()
        self.weight = self.weight - self.lr * w.grad(grads)
        self._fire("on_batch_end", loss.inner())

    def evaluate(self, x, y):
        loss = ((x @ self.weight.to_device(x.device) - y) ** 2).mean()
        self._fire("on_batch_end", loss)
        return loss


def main():
    history = LossHistory()
    trainer = Trainer(dispatch.zeros((3, 1)), callbacks=[history])
    x, y = dispatch.rand((8, 3), seed=1), dispatch.rand((8, 1), seed=2)
    for _ in range(3):
        trainer.fit_batch(x, y)
    cap = dispatch.Capture()
    feats = dispatch.placeholder((8, 3), device=cap, name="feats")
    labels = dispatch.placeholder((8, 1), device=cap, name="labels")
    program = dispatch.export(trainer.evaluate(feats, labels))  # expect: DL003
    print(history.values, program.run({"feats": x, "labels": y}).item())
    return history.values


if __name__ == "__main__":
    main()
