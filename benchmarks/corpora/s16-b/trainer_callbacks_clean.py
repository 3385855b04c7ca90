"""A trainer with decorator-registered callbacks: early stopping state and an export check."""

import numpy as np

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards

AD = dispatch.Autodiff(dispatch.NumPy())


class Trainer:
    def __init__(self, n_in, lr=0.2):
        self.w = dispatch.zeros((n_in, 1), device=AD).require_grad()
        self.lr = lr
        self.callbacks, self.stop = {}, False

    def on(self, event):
        def register(fn):
            self.callbacks.setdefault(event, []).append(fn)
            return fn
        return register

    def fit(self, batches):
        for epoch, chunk in enumerate(batches):
            for x, y in chunk:
                loss = ((x @ self.w - y) ** 2).mean()
                grads = loss.backward()
                self.w = (self.w - self.w.grad(grads) * self.lr).require_grad()
            for fn in self.callbacks.get("epoch_end", []):
                fn(self, epoch=epoch, loss=loss)
            if self.stop:
                break


def epochs(data, n):
    def one_epoch():
        yield from data
    yield from (one_epoch() for _ in range(n))


def attach_callbacks(trainer, patience=2):
    best, stale = float("inf"), 0

    @trainer.on("epoch_end")
    def early_stop(tr, epoch, loss):
        nonlocal best, stale
        value = guards.ensure_not_capture(loss, what="the epoch loss").item()
        best, stale = (value, 0) if value < best - 1e-4 else (best, stale + 1)
        tr.stop = stale >= patience
        print(f"epoch {epoch}: loss {value:.5f} best {best:.5f}")

    @trainer.on("epoch_end")
    def export_check(tr, epoch, loss):
        probe = dispatch.placeholder((2, tr.w.shape[0]), name="x")
        out = probe @ tr.w.inner().to_device(probe.device)
        real = dispatch.replay(out, {"x": np.ones(probe.shape, dtype=np.float32)})
        print(f"  export check: {out} -> {real.sum().item():.4f}")

    return lambda: best


def main():
    rng = np.random.default_rng(2)
    true_w = np.array([[1.0], [2.0], [3.0]], dtype=np.float32)
    xs = [rng.normal(size=(16, 3)).astype(np.float32) for _ in range(4)]
    data = [(dispatch.from_numpy(x), dispatch.from_numpy(x @ true_w)) for x in xs]
    trainer = Trainer(3)
    best = attach_callbacks(trainer)
    trainer.fit(epochs(data, n=30))
    print(f"best loss {best():.6f}")
