"""Resolve per-job devices from layered run configs and fit a tiny regressor on each."""
from dispatch_lint import runtime as dispatch

BASE = {"lr": 0.1, "steps": 3, "device": "autodiff:numpy"}
JOBS = {
    "baseline": {},
    "fast": {"lr": 0.3},
    "export_check": {"steps": 1, "export": True},
}


def resolve(job_overrides):
    cfg = dict(BASE)
    cfg.update(job_overrides)
    if cfg.get("export"):
        cfg.pop("device")
    return cfg


def fit(spec, cfg):
    dev = dispatch.device(spec)
    w = dispatch.zeros((3, 1), device=dev).require_grad()
    x = dispatch.rand((6, 3), seed=5, device=dev)
    for _ in range(cfg["steps"]):
        loss = ((x @ w - 1.0) ** 2).mean()
        grads = loss.backward()
        w = dev.wrap(w.inner() - cfg["lr"] * w.grad(grads)).require_grad()
    return loss


def main():
    results = {}
    for name, overrides in JOBS.items():
        cfg = resolve(overrides)
        spec = cfg.get("device", "autodiff:capture")
        results[name] = fit(spec, cfg)  # expect: DL004
    return {k: v.inner().item() for k, v in results.items()}


if __name__ == "__main__":
    main()
