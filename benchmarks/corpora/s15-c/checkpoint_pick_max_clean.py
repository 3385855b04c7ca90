"""Pick the best checkpoint by accuracy with max(key=...), skipping traced candidates."""
import math

import numpy as np

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


def accuracy(logits, labels):
    return ((logits > 0.0) == (labels > 0.5)).mean()


def score(entry):
    _, acc = entry
    if guards.is_capture(acc):
        return -math.inf
    return acc.item()


def main():
    x = dispatch.rand((20, 4), seed=1) - 0.5
    labels = dispatch.rand((20, 1), seed=2)
    checkpoints = {f"step{s}": dispatch.rand((4, 1), seed=s) - 0.5 for s in (100, 200, 300)}
    results = [(name, accuracy(x @ w, labels)) for name, w in checkpoints.items()]

    cap = dispatch.Capture()
    traced_x = dispatch.placeholder((20, 4), device=cap, name="x")
    traced_acc = accuracy(traced_x @ checkpoints["step300"].to_device(cap), labels.to_device(cap))
    results.insert(0, ("traced", traced_acc))

    best_name, best_acc = max(results, key=score)
    replayed = dispatch.replay(traced_acc, {"x": x.numpy()})
    ordered = sorted(results[1:], key=lambda pair: pair[1].item(), reverse=True)
    print(best_name, float(best_acc), replayed.item(), [name for name, _ in ordered])
    assert np.isfinite(replayed.item())
    return best_name


if __name__ == "__main__":
    main()
