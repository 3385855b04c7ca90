"""Offload activations to the host for inspection, timing each call with a decorator factory."""
import functools
import time

from dispatch_lint import runtime as dispatch

TIMINGS = {}


def timed(label, unit="ms"):
    scale = {"ms": 1e3, "us": 1e6}[unit]

    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                TIMINGS.setdefault(label, []).append((time.perf_counter() - start) * scale)

        return wrapper

    return decorator


@timed("offload", unit="us")
def offload(activations, host=None):
    host = host or dispatch.NumPy()
    return {name: t.to_device(host) for name, t in activations.items()}


def encoder(x, w):
    hidden = (x @ w).tanh()
    return {"hidden": hidden, "pooled": hidden.mean(axis=0)}


def main():
    w = dispatch.rand((3, 4), seed=4, device="numba")
    eager = encoder(dispatch.rand((6, 3), seed=8, device="numba"), w)
    host_eager = offload(eager, host=dispatch.NumPy())
    cap = dispatch.Capture()
    traced = encoder(dispatch.placeholder((6, 3), device=cap, name="x"), w.to_device(cap))
    pooled = dispatch.replay(traced["pooled"], {"x": dispatch.rand((6, 3), seed=8).numpy()})
    print("replayed pooled:", pooled.tolist())
    host_traced = offload(activations=traced)  # expect: DL002
    print({k: f"{v:.1f}" for k, v in [(k, sum(ts)) for k, ts in TIMINGS.items()]})
    return host_eager, host_traced


if __name__ == "__main__":
    main()
