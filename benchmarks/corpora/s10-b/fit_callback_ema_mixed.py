"""Fits a linear model and keeps an exponential moving average of the weights via a callback."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def fit(w, batches, lr, on_batch_end=None):
    for step, (x, y) in enumerate(batches):
        w = w.require_grad()
        loss = ((x @ w - y) ** 2.0).mean()
        w = AD.wrap(w.inner() - lr * w.grad(loss.backward()))
        if on_batch_end is not None:
            on_batch_end(step, w.inner())
    return w


def make_ema(decay, device):
    shadow = {}

    def update(step, weights):
        if "w" not in shadow:
            shadow["w"] = weights.to_device(device)
        else:
            shadow["w"] = decay * shadow["w"] + (1.0 - decay) * weights
    return update, shadow


def main():
    batches = [(dispatch.rand((6, 2), seed=s, device=AD), dispatch.ones((6,), device=AD))
               for s in range(3)]
    ema, shadow = make_ema(0.9, dispatch.Numba())
    w = fit(dispatch.zeros((2,), device=AD), batches, lr=0.1, on_batch_end=ema)  # expect: DL008
    return w, shadow["w"]


if __name__ == "__main__":
    main()
