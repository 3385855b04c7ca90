"""Train a tiny classifier with step hooks, then trace it for export with the same hooks."""
import logging

from dispatch_lint import runtime as dispatch

log = logging.getLogger(__name__)
AD = dispatch.Autodiff(dispatch.NumPy())


class HookedTrainer:
    def __init__(self, lr=0.05):
        self.lr = lr
        self.hooks = {"step": [], "export": []}

    def on(self, event):
        def register(fn):
            self.hooks[event].append(fn)
            return fn
        return register

    def _fire(self, event, *args):
        for hook in self.hooks[event]:
            hook(*args)

    def logits(self, w, x):
        return (x @ w).sigmoid()

    def train_step(self, step, w, x, y):
        loss = ((self.logits(w, x) - y) ** 2).mean()
        grads = loss.backward()
        self._fire("step", step, loss)
        return AD.wrap(w.inner() - self.lr * w.grad(grads)).require_grad()

    def trace(self, w, x):
        out = self.logits(w, x)
        self._fire("step", -1, out.mean())
        return dispatch.export(out)


trainer = HookedTrainer()


@trainer.on("step")
def log_loss(step, loss):
    log.info("step %d loss %s", step, f"{loss:.4f}")


def main():
    w = AD.wrap(dispatch.rand((3, 1), seed=2)).require_grad()
    x = dispatch.rand((5, 3), seed=3, device=AD)
    for step in range(3):
        w = trainer.train_step(step, w, x, dispatch.ones((5, 1)))
    cap = dispatch.Capture()
    xp = dispatch.placeholder((5, 3), device=cap, name="x")
    program = trainer.trace(w.inner().to_device(cap), xp)  # expect: DL003
    return program


if __name__ == "__main__":
    main()
