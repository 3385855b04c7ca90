"""Replay an exported scorer and pass its named results as keyword metrics to a guarded logger."""
import numpy as np

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


@guards.no_capture
def log_metrics(step, **metrics):
    parts = [f"step {step:04d}"]
    for name, value in metrics.items():
        parts.append(f"{name}={value:.3f}")
    print(" | ".join(parts))
    return len(parts)


def main():
    cap = dispatch.Capture()
    scores = dispatch.placeholder((5,), device=cap, name="scores")
    traced = {"top": scores.max(), "avg": scores.mean(), "spread": (scores - scores.mean()).abs().mean()}
    program = dispatch.export(*traced.values())
    feed = {"scores": np.linspace(0.0, 1.0, 5, dtype=np.float32)}
    for step in range(2):
        values = program.run(feed)
        real = {name: value for name, value in zip(traced, values)}
        log_metrics(step, **real)
    print({k: repr(v) for k, v in traced.items()})
    return real


if __name__ == "__main__":
    main()
