"""Export an evaluation graph inside try/finally, then report metrics from the replayed outputs."""
import numpy as np

from dispatch_lint import runtime as dispatch


class EvalState:
    def __init__(self):
        self.device = dispatch.NumPy()
        self.history = []


def score_graph(state, features):
    previous = state.device
    state.device = dispatch.Capture()
    try:
        x = dispatch.placeholder(features.shape, device=state.device, name="features")
        logits = x.sum(axis=1).sigmoid()
        result = dispatch.replay(logits, {"features": features})
    finally:
        state.device = previous
        state.history.append(f"exported {logits}")
    return result


def main():
    state = EvalState()
    features = np.arange(12, dtype=np.float32).reshape(3, 4) / 10.0
    probs = score_graph(state, features)
    mean_prob = probs.mean().item()
    baseline = dispatch.ones((3,), device=state.device) * 0.5
    print(f"mean prob {mean_prob:.4f}, above baseline: {(probs - baseline).max().item():.3f}")
    print(state.history[-1])


if __name__ == "__main__":
    main()
