"""Resume logistic-regression training from a checkpoint with a timed, retrying train step."""

import functools
import time
import numpy as np

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())
TIMINGS = []


def timed(label, sink=TIMINGS):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                sink.append((label, time.perf_counter() - start))
        return wrapper
    return decorate


def retry(times, on=(FloatingPointError,)):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for _ in range(times - 1):
                try:
                    return fn(*args, **kwargs)
                except on:
                    pass
            return fn(*args, **kwargs)
        return wrapper
    return decorate


@timed("train_step")
@retry(times=2)
def train_step(params, batch, *, lr):
    x, y = batch
    prob = (x @ params["w"] + params["b"]).sigmoid()
    loss = -(y * prob.log() + (1 - y) * (1 - prob).log()).mean()
    grads = loss.backward()
    updated = {k: (p - p.grad(grads) * lr).require_grad() for k, p in params.items()}
    return updated, loss


def init_params(n_in):
    return {"w": dispatch.zeros((n_in, 1), device=AD).require_grad(),
            "b": dispatch.zeros((1,), device=AD).require_grad()}


def load_checkpoint(state):
    return {k: dispatch.from_numpy(np.asarray(v, dtype=np.float32)) for k, v in state.items()}


def main():
    rng = np.random.default_rng(0)
    x = dispatch.from_numpy(rng.normal(size=(64, 2)).astype(np.float32))
    y = dispatch.from_numpy((rng.random((64, 1)) > 0.5).astype(np.float32))
    params = init_params(2)
    for _ in range(5):
        params, loss = train_step(params, (x, y), lr=0.5)
    resumed = load_checkpoint({k: p.inner().numpy() for k, p in params.items()})
    for _ in range(5):
        resumed, loss = train_step(resumed, (x, y), lr=0.5)  # expect: DL006
    print(f"loss {loss.item():.4f}", len(TIMINGS), "timed steps")
