"""Resolve the training device from layered config dicts and fit a small linear model."""
from dispatch_lint import runtime as dispatch

DEFAULTS = {"lr": 0.1, "steps": 3, "backend": dispatch.NumPy()}


def load_overrides(profile):
    table = {
        "cpu": {"steps": 2},
        "tuned": {"lr": 0.05, "backend": dispatch.Autodiff(dispatch.NumPy())},
    }
    return table.get(profile, {})


def fit(device, lr, steps):
    x = dispatch.rand((10, 3), seed=1, device=device)
    w = dispatch.rand((3, 1), seed=2, device=device).require_grad()
    for _ in range(steps):
        loss = ((x @ w - 1.0) ** 2).mean()
        w = (w - lr * w.grad(loss.backward())).require_grad()
    return loss.inner().item()


def main():
    results = {}
    for profile in ("cpu", "tuned"):
        config = dict(DEFAULTS)
        config.update(load_overrides(profile))
        backend = config.get("backend", dispatch.NumPy())
        device = dispatch.Autodiff(backend)  # expect: DL005
        results[profile] = fit(device, config["lr"], config["steps"])
    print({k: round(v, 4) for k, v in results.items()})
    return results


if __name__ == "__main__":
    main()
