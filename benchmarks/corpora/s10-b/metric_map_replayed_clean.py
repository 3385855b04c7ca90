"""Exports per-head validation metrics, replays them on real features and reports the scores."""
import numpy as np

from dispatch_lint import runtime as dispatch


def build_eval_graph(num_heads):
    cap = dispatch.Capture()
    feats = dispatch.placeholder((4, 8), device=cap, name="features")
    heads = []
    for h in range(num_heads):
        weight = dispatch.rand((8,), seed=h).to_device(cap)
        heads.append(dispatch.sigmoid((feats * weight).sum(axis=1)).mean())
    return heads


def to_scores(outputs, reader=lambda t: t.item()):
    return list(map(reader, outputs))


def main():
    heads = build_eval_graph(3)
    program = dispatch.export(*heads)
    features = np.random.default_rng(0).standard_normal((4, 8)).astype("float32")
    outputs = program.run({"features": features})
    scores = to_scores(outputs)
    labels = list(map(str, heads))
    for label, score in zip(labels, scores):
        print(f"{label[:24]} -> {score:.3f}")
    best = max(range(len(scores)), key=scores.__getitem__)
    return best, scores


if __name__ == "__main__":
    main()
