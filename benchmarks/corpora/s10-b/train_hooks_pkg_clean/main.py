"""Trains a linear model, fires registered hooks each batch, then traces and exports it."""
from dispatch_lint import runtime as dispatch
from train_hooks_pkg_clean import callbacks  # noqa: F401  (registers the hooks)
from train_hooks_pkg_clean.hooks import fire

AD = dispatch.Autodiff(dispatch.NumPy())


def main():
    w = dispatch.rand((3,), seed=0, device=AD)
    x = dispatch.rand((8, 3), seed=1, device=AD)
    y = dispatch.ones((8,), device=AD)
    log = []
    for step in range(3):
        w = w.require_grad()
        loss = ((x @ w - y) ** 2.0).mean()
        g = w.grad(loss.backward())
        w = AD.wrap(w.inner() - 0.1 * g)
        fire("batch_end", step, loss, log)
    cap = dispatch.Capture()
    xp = dispatch.placeholder((8, 3), device=cap, name="x")
    traced = (xp @ w.inner().to_device(cap)).mean()
    fire("batch_end", 3, traced, log)
    fire("fit_end", 3, traced, log)
    return log


if __name__ == "__main__":
    main()
