"""The ranking model, traced on a capture device."""
from dispatch_lint import runtime as dispatch


def trace(weights, batch=4):
    cap = dispatch.Capture()
    q = dispatch.placeholder((batch, 3), device=cap, name="query")
    d = dispatch.placeholder((batch, 3), device=cap, name="doc")
    w = weights.to_device(cap)
    score = ((q * w) * d).sum(axis=1)
    return {"score": score, "prob": score.sigmoid(), "margin": (score - 0.5).relu().mean()}
