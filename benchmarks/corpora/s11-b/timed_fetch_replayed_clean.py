"""Time the trace and fetch stages of an export, fetching only the replayed outputs."""
import functools
import logging
import time

from dispatch_lint import runtime as dispatch

log = logging.getLogger(__name__)


def timed(label):
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            result = fn(*args, **kwargs)
            log.info("%s %s took %.3fs: %r", label, fn.__name__, time.perf_counter() - start, result)
            return result

        return wrapper

    return decorator


@timed("trace")
def trace_model(w, b, batch):
    cap = dispatch.Capture()
    x = dispatch.placeholder((batch, 3), device=cap, name="x")
    return dispatch.relu(x @ w.to_device(cap) + b.to_device(cap))


@timed("fetch")
def fetch(t, device=dispatch.NumPy()):
    return t.to_device(device)


def main():
    w = dispatch.rand((3, 2), seed=0)
    b = dispatch.zeros((2,))
    out = trace_model(w, b, batch=4)
    out = dispatch.replay(out, {"x": dispatch.rand((4, 3), seed=5)}, device="numba")
    host = fetch(out)
    print(host.tolist())


if __name__ == "__main__":
    main()
