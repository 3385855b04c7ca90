"""Capture preprocessing and scoring on separate devices, ship both as JSON, and chain the replays."""
import numpy as np

from dispatch_lint import runtime as dispatch


def preprocess_program(mean, std):
    cap = dispatch.Capture()
    raw = dispatch.placeholder((3, 4), device=cap, name="raw")
    norm = (raw - mean.to_device(cap)) / std.to_device(cap)
    return dispatch.export(norm.to_device(cap)).to_json()


def scoring_program(w):
    cap = dispatch.Capture()
    feats = dispatch.placeholder((3, 4), device=cap, name="feats")
    return dispatch.export((feats @ w.to_device(cap)).sigmoid()).to_json()


def main():
    mean = dispatch.full((4,), 1.0)
    std = dispatch.full((4,), 2.0)
    w = dispatch.rand((4, 1), seed=8)
    shipped = [preprocess_program(mean, std), scoring_program(w)]
    pre, score = (dispatch.Program.from_json(text) for text in shipped)
    raw = np.arange(12, dtype=np.float32).reshape(3, 4)
    feats = pre.run({"raw": raw})
    probs = score.run({"feats": feats}, device=dispatch.Numba())
    reference = score.run({"feats": (raw - 1.0) / 2.0})
    if not np.allclose(probs.numpy(), reference.numpy(), atol=1e-6):
        raise AssertionError("chained replay differs from the reference")
    return probs.to_device(dispatch.NumPy()) + reference


if __name__ == "__main__":
    main()
