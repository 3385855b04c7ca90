"""Sweep learning rates over merged settings and score each trained head on eager or traced inputs."""
from dispatch_lint import runtime as dispatch

BASE = {"device": "autodiff:numpy", "score_device": "numpy", "steps": 2, "lr": 0.1}
SWEEP = [{"lr": 0.05}, {"lr": 0.2, "score_device": "capture"}, {"steps": 3}]
INPUT = [[1.0, 0.0], [0.5, 0.5]]


def fit(cfg):
    dev = dispatch.device(cfg["device"])
    x = dispatch.tensor(INPUT, device=dev)
    w = dispatch.ones((2, 1), device=dev)
    for _ in range(cfg["steps"]):
        w = w.require_grad()
        grads = (x @ w).tanh().sum().backward()
        w = dev.wrap(w.inner() - cfg["lr"] * w.grad(grads))
    return w.inner()


def score(w, cfg):
    dev = dispatch.device(cfg["score_device"])
    x = dispatch.placeholder((2, 2), device=dev, name="x") if dev.is_capture else dispatch.tensor(INPUT)
    out = (x @ w.to_device(dev)).sum()
    if dispatch.is_capture(out):
        out = dispatch.replay([out], {"x": INPUT})
    return out


def main():
    results = []
    for override in SWEEP:
        cfg = BASE | override
        w = fit(cfg)
        results.append((cfg["lr"], round(float(score(w, cfg)), 4)))
    return sorted(results)


if __name__ == "__main__":
    main()
