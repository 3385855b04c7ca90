"""Share a cached target device between sibling closures of a small eval harness."""
import numpy as np

from dispatch_lint import runtime as dispatch


def make_harness(default="numpy"):
    cached = None
    calls = 0

    def target():
        nonlocal cached
        if cached is None:
            cached = dispatch.device(default)
        return cached

    def retarget(spec):
        nonlocal cached
        cached = dispatch.device(spec)

    def score(batch, weights):
        nonlocal calls
        calls += 1
        dev = target()
        logits = dispatch.from_numpy(batch, device=dev) @ weights.to_device(dev)
        return logits.sigmoid().mean().item()

    return target, retarget, score


def main():
    target, retarget, score = make_harness()
    weights = dispatch.rand((3, 1), seed=2)
    batch = np.linspace(0.0, 1.0, 12, dtype=np.float32).reshape(4, 3)
    history = [score(batch, weights)]
    retarget("capture")
    print("now targeting", target())
    history.append(score(batch, weights))  # expect: DL003
    return history


if __name__ == "__main__":
    main()
