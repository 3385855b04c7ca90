"""Time each pipeline step with a functools.wraps decorator that forwards every argument."""
import functools
import time

import numpy as np

from dispatch_lint import runtime as dispatch

TIMINGS = {}


def timed(label):
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                TIMINGS[label] = time.perf_counter() - start
        return wrapper
    return decorator


@timed("normalize")
def normalize(t, eps=1e-6):
    return t / (t.abs().max() + eps)


@timed("histogram")
def histogram(t, bins=4):
    return np.histogram(t.numpy(), bins=bins)[0]


def main():
    cap = dispatch.Capture()
    real = normalize(dispatch.rand((16,), seed=4))
    print("hist", histogram(real, bins=3))
    traced = normalize(dispatch.placeholder((16,), device=cap, name="x"), eps=1e-5)
    counts = histogram(t=traced, bins=3)  # expect: DL003
    return counts, TIMINGS


if __name__ == "__main__":
    main()
