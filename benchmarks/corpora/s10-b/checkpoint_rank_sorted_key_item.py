"""Ranks candidate checkpoints by validation loss and keeps the best two for export."""
from dispatch_lint import runtime as dispatch


def val_loss(weights, inputs, targets):
    pred = dispatch.tanh(inputs @ weights)
    return ((pred - targets) ** 2.0).mean()


def make_candidates(seeds, device):
    return [{"seed": s, "weights": dispatch.rand((4, 2), seed=s, device=device)} for s in seeds]


def rank(candidates, score):
    return sorted(candidates, key=lambda c: float(score(c)))


def main():
    cap = dispatch.Capture()
    inputs = dispatch.placeholder((8, 4), device=cap, name="inputs")
    targets = dispatch.placeholder((8, 2), device=cap, name="targets")
    candidates = make_candidates([1, 2, 3], device=dispatch.NumPy())
    for cand in candidates:
        cand["loss"] = val_loss(cand["weights"].to_device(cap), inputs, targets)
    best = rank(candidates, lambda c: c["loss"])[:2]  # expect: DL003
    program = dispatch.export(*(c["loss"] for c in best))
    return [c["seed"] for c in best], program


if __name__ == "__main__":
    main()
