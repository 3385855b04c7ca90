"""Report readable metrics, skipping traced ones through helper checks and host guards."""
import numpy as np

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


def is_traced(t):
    return dispatch.is_capture(t)


def is_real(t):
    return not t.is_capture


def on_host(t):
    guards.ensure_not_capture(t, what="a replayed metric")
    return t


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((6,), device=cap, name="x")
    metrics = {
        "bias": dispatch.tensor(0.25),
        "traced_norm": (x * x).sum().sqrt(),
        "scale": dispatch.ones((6,)).mean(),
        "traced_peak": x.abs().max(),
    }
    readings, skipped = {}, []
    for name, t in metrics.items():
        if is_traced(t):
            skipped.append(name)
            continue
        readings[name] = float(t)
    replayed = [metrics[name] for name in skipped if not is_real(metrics[name])]
    inputs = {"x": np.arange(6, dtype=np.float32)}
    for name, out in zip(skipped, dispatch.replay(replayed, inputs)):
        readings[name] = format(on_host(out), ".3f")
    print(readings)
    return readings


if __name__ == "__main__":
    main()
