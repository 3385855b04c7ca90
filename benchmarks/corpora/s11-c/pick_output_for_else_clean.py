"""Pick the first evaluated candidate from an export sweep, replaying one when none is evaluated."""
import numpy as np

from dispatch_lint import runtime as dispatch


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((3,), device=cap, name="x")
    candidates = [x.relu().sum(), x.sigmoid().sum(), x.tanh().sum()]
    feed = {"x": np.array([0.5, -1.0, 2.0], dtype=np.float32)}
    for i, cand in enumerate(candidates):
        if not dispatch.is_capture(cand):
            chosen = cand
            break
    else:
        i = 0
        chosen = dispatch.replay(candidates[i], feed)
    score = chosen.item()
    print(f"candidate {i}: {score:.3f}")
    return score


if __name__ == "__main__":
    main()
