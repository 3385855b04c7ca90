"""Times each training step with a decorator factory and reports the slowest step."""
import functools
import time

from dispatch_lint import runtime as dispatch

TIMINGS = {}


def timed(label, *, unit=1e3):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                TIMINGS.setdefault(label, []).append((time.perf_counter() - start) * unit)
        return wrapper
    return decorate


@timed("train_step")
def train_step(w, x, y, lr=0.05):
    loss = ((x @ w - y) ** 2.0).mean()
    grads = loss.backward()
    return w - lr * w.grad(grads), loss


def main():
    device = dispatch.device("numpy")
    w = dispatch.rand((4,), seed=0, device=device)
    x = dispatch.rand((10, 4), seed=1, device=device)
    y = dispatch.zeros((10,), device=device)
    for _ in range(3):
        w, loss = train_step(w, x, y, lr=0.1)  # expect: DL006
    slowest = max(TIMINGS["train_step"])
    return slowest, loss


if __name__ == "__main__":
    main()
