"""Capture an anomaly score, replay it on real readings, then threshold the replayed values."""
import numpy as np

from dispatch_lint import runtime as dispatch


def build_score(cap, center):
    readings = dispatch.placeholder((5, 3), device=cap, name="readings")
    diff = readings - center.to_device(cap)
    return (diff * diff).sum(axis=1).sqrt()


def main():
    cap = dispatch.Capture()
    center = dispatch.tensor([0.5, 0.5, 0.5])
    score = build_score(cap, center)
    print("captured", score, f"shape={score.shape}")
    print(f"graph: {score}")

    readings = np.random.default_rng(7).random((5, 3)).astype(np.float32)
    score = dispatch.replay(score, {"readings": readings})
    flagged = []
    for i, value in enumerate(score.tolist()):
        if value > 0.6:
            flagged.append(i)
    worst = score.max()
    if worst > 0.9:
        print(f"severe anomaly {worst.item():.3f}")
    print(f"flagged {flagged}, mean {score.mean():.3f}")
    return flagged


if __name__ == "__main__":
    main()
