"""Build a Numba-backed trainer from a run config and fit a small regression."""
from dispatch_lint import runtime as dispatch

DEFAULTS = {"backend": "numba", "lr": 0.05, "epochs": 3}


class Trainer:
    def __init__(self, backend, lr, epochs):
        self.backend = dispatch.device(backend)
        self.device = dispatch.Autodiff(self.backend)
        self.lr = lr
        self.epochs = epochs
        self.hooks = []

    @classmethod
    def from_config(cls, overrides=None):
        cfg = {**DEFAULTS, **(overrides or {})}
        return cls(cfg["backend"], cfg["lr"], cfg["epochs"])

    def add_hook(self, fn):
        self.hooks.append(fn)
        return self

    def fit(self, x, y, w):
        for epoch in range(self.epochs):
            w = self.device.wrap(w).require_grad()
            loss = ((self.device.wrap(x) @ w - y) ** 2).mean()
            w = w.inner() - self.lr * w.grad(loss.backward())
            for hook in self.hooks:
                hook(epoch, loss.inner())
        return w


def main():
    losses = []
    base = Trainer.from_config().add_hook(lambda e, l: losses.append(l.item()))
    x = dispatch.rand((8, 2), seed=0, device=base.backend)
    y = dispatch.rand((8, 1), seed=1, device=base.backend)
    w = base.fit(x, y, dispatch.zeros((2, 1), device=base.backend))
    tuned = Trainer.from_config({"backend": "autodiff:numba", "lr": 0.01})  # expect: DL005
    w = tuned.fit(x, y, w)
    print(losses, w.tolist())
    return w


if __name__ == "__main__":
    main()
