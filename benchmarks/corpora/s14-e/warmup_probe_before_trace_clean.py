"""Warm up a scoring head eagerly, log its value, then trace the same head for export."""
import numpy as np

from dispatch_lint import runtime as dispatch

LATEST = None
WEIGHTS = np.array([0.4, -0.2, 0.7], dtype=np.float32)


def score_head(x):
    w = dispatch.from_numpy(WEIGHTS, device=x.device)
    return (x * w).tanh().sum()


def warm_up():
    global LATEST
    LATEST = score_head(dispatch.tensor([1.0, 2.0, 3.0]))


def trace_head():
    global LATEST
    cap = dispatch.Capture()
    x = dispatch.placeholder((3,), device=cap, name="x")
    LATEST = score_head(x)
    return dispatch.export(LATEST)


def main():
    warm_up()
    eager = LATEST.item()
    print(f"warm-up score {eager:.4f}")
    program = trace_head()
    print("traced", LATEST)
    result = program.run({"x": np.array([1.0, 2.0, 3.0], dtype=np.float32)})
    assert abs(result.item() - eager) < 1e-5
    return result


if __name__ == "__main__":
    main()
