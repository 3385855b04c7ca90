"""Capture two ensemble members on their own devices and export the averaged prediction."""
import numpy as np

from dispatch_lint import runtime as dispatch


class Member:
    def __init__(self, seed, width=5):
        self.w = dispatch.rand((width, 1), seed=seed)
        self.b = dispatch.full((1,), 0.01 * seed)

    def trace(self, batch):
        cap = dispatch.Capture()
        x = dispatch.placeholder((batch, self.w.shape[0]), device=cap, name="x")
        return x, (x @ self.w.to_device(cap) + self.b.to_device(cap)).tanh()


def blend(preds, weights):
    total = preds[0] * weights[0]
    for pred, weight in zip(preds[1:], weights[1:]):
        total = total + pred * weight
    return total


def main():
    members = [Member(seed) for seed in (4, 9)]
    traced = [m.trace(batch=3) for m in members]
    preds = [pred for _, pred in traced]
    mixed = blend(preds, [0.6, 0.4])  # expect: DL008
    program = dispatch.export(mixed)
    data = np.random.default_rng(0).normal(size=(3, 5)).astype(np.float32)
    out = program.run({"x": data})
    return out.shape


if __name__ == "__main__":
    main()
