"""Accumulate MSE and accuracy over batches served by an exported classifier head."""
import numpy as np

from dispatch_lint import runtime as dispatch


class MetricAccumulator:
    def __init__(self, names=("mse", "acc")):
        self.totals = {name: 0.0 for name in names}
        self.count = 0

    def update(self, pred, target):
        self.totals["mse"] += float(((pred - target) ** 2).mean())
        self.totals["acc"] += float(((pred > 0.5) == (target > 0.5)).astype("float32").mean())
        self.count += 1

    def compute(self):
        return {k: v / max(self.count, 1) for k, v in self.totals.items()}


def build_head(weight, batch):
    cap = dispatch.Capture()
    feats = dispatch.placeholder((batch, weight.shape[0]), device=cap, name="feats")
    return feats, (feats @ weight.to_device(cap)).sigmoid()


def main():
    weight = dispatch.rand((4, 1), seed=11) - 0.5
    feats, probs = build_head(weight, batch=5)
    program = dispatch.export(probs)
    metrics = MetricAccumulator()
    outputs = {"traced": probs}
    for i in range(3):
        batch = np.random.default_rng(i).normal(size=(5, 4)).astype(np.float32)
        target = dispatch.tensor((batch.sum(axis=1, keepdims=True) > 0).astype(np.float32))
        outputs[f"batch{i}"] = (program.run({"feats": batch}), target)
    for name, value in outputs.items():
        if dispatch.is_capture(value):
            continue
        metrics.update(*value)
    print(feats, metrics.compute())
    return metrics.compute()


if __name__ == "__main__":
    main()
