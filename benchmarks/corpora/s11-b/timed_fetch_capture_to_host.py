"""Time the trace, run and fetch stages of an export with a decorator factory."""
import functools
import time

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
                TIMINGS.setdefault(label, []).append(time.perf_counter() - start)

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
    program = dispatch.export(out)
    result = program.run({"x": dispatch.rand((4, 3), seed=5)})
    host = fetch(result, device="numpy")
    fused = fetch(out, device=dispatch.Numba())  # expect: DL002
    print(host.tolist(), fused.shape, sorted(TIMINGS))


if __name__ == "__main__":
    main()
