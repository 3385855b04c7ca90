"""Metric callbacks stored in a list at setup and called after each export replay."""
import numpy as np

from dispatch_lint import runtime as dispatch


def make_metrics(threshold):
    seen = []

    def mean_score(t):
        if dispatch.is_capture(t):
            return None
        seen.append(t.mean().item())
        return seen[-1]

    def hit_rate(t):
        if t.is_capture:
            return None
        return float(((t > threshold) * 1.0).mean())

    return [mean_score, hit_rate], seen


def main():
    metrics, seen = make_metrics(0.5)
    cap = dispatch.Capture()
    x = dispatch.placeholder((6,), device=cap, name="logits")
    probs = x.sigmoid()
    results = []
    for candidate in (probs, dispatch.replay(probs, {"logits": np.linspace(-2, 2, 6)})):
        results.append([metric(candidate) for metric in metrics])
    print(results, seen)
    return results


if __name__ == "__main__":
    main()
