"""Log evaluated metrics, replaying the traced ones through their exported program first."""
import numpy as np

from dispatch_lint import runtime as dispatch


def needs_replay(t):
    return t.is_capture


def main():
    cap = dispatch.Capture()
    batch = dispatch.placeholder((4,), device=cap, name="batch")
    outputs = {"mean": batch.mean(), "peak": batch.max()}
    outputs["baseline"] = dispatch.tensor(0.5)
    feed = {"batch": np.arange(4, dtype=np.float32)}

    values = {}
    for name, t in outputs.items():
        if needs_replay(t):
            values[name] = t.item()  # expect: DL003
        else:
            values[name] = dispatch.replay(t, feed).item()
    print(", ".join(f"{k}={v:.2f}" for k, v in values.items()))
    return values


if __name__ == "__main__":
    main()
