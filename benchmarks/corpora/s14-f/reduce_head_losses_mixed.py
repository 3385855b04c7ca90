"""Sum the per-head losses of a multi-head model with functools.reduce before logging."""
import functools
import operator

from dispatch_lint import runtime as dispatch

HEADS = ("cls", "box", "mask")


def head_loss(features, weight, target):
    logits = (features * weight).sum(axis=1)
    return ((logits - target) ** 2).mean()


def trace_head(name, shape):
    cap = dispatch.Capture()
    feats = dispatch.placeholder(shape, device=cap, name=f"{name}_features")
    weight = dispatch.ones((shape[1],)).to_device(cap)
    return head_loss(feats, weight, dispatch.zeros((shape[0],)).to_device(cap))


def main():
    features = dispatch.rand((8, 3), seed=11)
    targets = {name: dispatch.rand((8,), seed=i) for i, name in enumerate(HEADS)}
    weights = {name: dispatch.full((3,), 0.5 + i) for i, name in enumerate(HEADS)}
    per_head = {
        name: head_loss(features, weights[name], targets[name]) for name in HEADS
    }
    per_head["mask"] = trace_head("mask", (8, 3))
    ranked = sorted(per_head, key=lambda name: HEADS.index(name))
    parts = list(map(per_head.__getitem__, ranked))
    total = functools.reduce(operator.add, parts)  # expect: DL008
    print(f"total loss over {len(parts)} heads: {total}")
    return total


if __name__ == "__main__":
    main()
