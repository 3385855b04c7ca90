"""The classifier head traced for export."""
import numpy as np

from dispatch_lint import runtime as dispatch


def traced_head(batch=4, dim=3):
    cap = dispatch.Capture()
    x = dispatch.placeholder((batch, dim), device=cap, name="features")
    w = dispatch.tensor(np.linspace(-1, 1, dim * 2).reshape(dim, 2), device=cap)
    logits = x @ w
    return {"logits": logits, "probs": logits.sigmoid(), "margin": (logits.max(axis=1))}
