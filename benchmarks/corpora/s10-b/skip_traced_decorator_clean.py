"""Runs an update step behind a decorator factory that skips traced inputs during export."""
import functools

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.Numba())


def skip_when_traced(default=None):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            values = list(args) + list(kwargs.values())
            if any(dispatch.is_capture(v) for v in values):
                return default
            return fn(*args, **kwargs)
        return wrapper
    return decorate


@skip_when_traced(default=0.0)
def update(w, x, *, lr):
    w = w.require_grad()
    loss = dispatch.relu(x * w).sum()
    g = w.grad(loss.backward())
    w.inner().numpy()[:] -= lr * g.numpy()
    return loss.item()


def main():
    w = dispatch.ones((5,), device=AD)
    x = dispatch.rand((5,), seed=4, device=AD)
    real = [update(w, x, lr=0.01) for _ in range(2)]
    cap = dispatch.Capture()
    xp = dispatch.placeholder((5,), device=cap, name="x")
    traced = update(w.inner().to_device(cap), xp, lr=0.01)
    return real, traced


if __name__ == "__main__":
    main()
