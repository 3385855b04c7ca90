"""Summarise a mix of eager and traced probe values, replaying the traced ones first."""
import functools

import numpy as np

from dispatch_lint import runtime as dispatch


def run_traced(t, inputs, device):
    return dispatch.replay(t, inputs, device=device)


def probes(cap):
    x = dispatch.placeholder((4, 2), device=cap, name="x")
    eager = dispatch.rand((4, 2), seed=5)
    return {
        "eager_mean": eager.mean(),
        "eager_max": eager.max(),
        "traced_mean": x.mean(),
        "traced_norm": (x * x).sum().sqrt(),
    }


def main():
    cap = dispatch.Capture()
    values = probes(cap)
    inputs = {"x": np.full((4, 2), 0.25, dtype=np.float32)}
    on_host = functools.partial(run_traced, inputs=inputs, device=dispatch.NumPy())
    bias = functools.partial(dispatch.full, (), 0.01)

    names = list(values.keys())
    traced_names = list(filter(lambda k: dispatch.is_capture(values[k]), names))
    eager_names = [k for k in names if k not in traced_names]
    replayed = dict(zip(traced_names, map(on_host, (values[k] for k in traced_names))))
    summary = {k: float(values[k] + bias()) for k in eager_names}
    summary.update((k, float(v)) for k, v in replayed.items())
    lowest = min(summary, key=summary.get)
    print(lowest, {k: round(v, 3) for k, v in sorted(summary.items())})
    return summary


if __name__ == "__main__":
    main()
