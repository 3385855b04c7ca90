"""Tracks validation loss in closures, replacing a traced value with its replayed result."""
import numpy as np

from dispatch_lint import runtime as dispatch


def make_tracker(sample):
    state = {"pending": None}
    history = []

    def record(loss):
        state["pending"] = loss

    def resolve():
        loss = state["pending"]
        if dispatch.is_capture(loss):
            state["pending"] = dispatch.replay(loss, sample)

    def commit():
        history.append(float(state["pending"]))
        return history[-1]

    return record, resolve, commit


def main():
    rng = np.random.default_rng(0)
    sample = {"x": rng.standard_normal((6, 3)).astype("float32")}
    record, resolve, commit = make_tracker(sample)
    w = dispatch.rand((3,), seed=2)
    record((dispatch.from_numpy(sample["x"]) @ w).mean())
    commit()
    cap = dispatch.Capture()
    xp = dispatch.placeholder((6, 3), device=cap, name="x")
    record(dispatch.tanh(xp @ w.to_device(cap)).mean())
    resolve()
    return commit()


if __name__ == "__main__":
    main()
