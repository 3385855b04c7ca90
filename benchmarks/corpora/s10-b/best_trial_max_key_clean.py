"""Runs a small learning-rate sweep, picks the best trial with max(key=) and serves it on Numba."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def run_trial(lr, steps=4):
    w = dispatch.zeros((3,), device=AD)
    x = dispatch.rand((10, 3), seed=0, device=AD)
    y = dispatch.rand((10,), seed=1, device=AD)
    for _ in range(steps):
        w = w.require_grad()
        loss = ((x @ w - y) ** 2.0).mean()
        w = AD.wrap(w.inner() - lr * w.grad(loss.backward()))
    return {"lr": lr, "weights": w, "score": -loss}


def main():
    trials = [run_trial(lr) for lr in (0.01, 0.1, 0.3)]
    best = max(trials, key=lambda t: t["score"].item())
    worst = min(trials, key=lambda t: t["score"].item())
    served = best["weights"].inner().to_device(dispatch.Numba())
    cap = dispatch.Capture()
    x = dispatch.placeholder((2, 3), device=cap, name="x")
    program = dispatch.export(x @ served.to_device(cap))
    preds = program.run({"x": [[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]]}, device=dispatch.Numba())
    return best["lr"], worst["lr"], preds.tolist()


if __name__ == "__main__":
    main()
