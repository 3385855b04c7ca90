"""Rank exported checkpoints by validation loss after replaying each on real data."""
import numpy as np

from dispatch_lint import runtime as dispatch


def build_candidate(seed):
    cap = dispatch.Capture()
    x = dispatch.placeholder((5, 2), device=cap, name="x")
    w = dispatch.rand((2, 1), seed=seed).to_device(cap)
    return seed, ((x @ w) ** 2).mean()


def main():
    candidates = [build_candidate(seed) for seed in (1, 2, 3)]
    val = {"x": np.linspace(0, 1, 10, dtype=np.float32).reshape(5, 2)}
    scored = [(seed, dispatch.replay(loss, val)) for seed, loss in candidates]
    ranked = sorted(scored, key=lambda pair: pair[1].item())
    best_seed, best_loss = min(scored, key=lambda pair: float(pair[1]))
    print([seed for seed, _ in ranked], best_seed, f"{best_loss.item():.5f}")
    return best_seed


if __name__ == "__main__":
    main()
