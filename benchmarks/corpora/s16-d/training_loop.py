"""Train a small regressor with early stopping and an EMA shadow copy inside guards.training()."""

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards

CONFIG = {"device": "autodiff:numpy", "epochs": 6, "tol": 1e-9, "lr": 0.2, "ema": 0.9,
          "skip_every": 3}


def batches(width, count):
    for i in range(count):
        x = dispatch.rand((8, width), seed=i)
        yield i, x, x.sum(axis=1, keepdims=True) * 0.5


def fit(width=3):
    device = dispatch.device(CONFIG["device"])
    w = dispatch.zeros((width, 1), device=device).require_grad()
    shadow = w.inner()
    history = []
    with guards.training():
        for epoch in range(CONFIG["epochs"]):
            for i, x, y in batches(width, 4):
                if i and i % CONFIG["skip_every"] == 0:
                    continue
                loss = ((x @ w - y) ** 2).mean()
                grads = loss.backward()
                w = (w - w.grad(grads) * CONFIG["lr"]).require_grad()
                shadow = shadow * CONFIG["ema"] + w.inner() * (1 - CONFIG["ema"])
            history.append(loss.item())
            if history[-1] < CONFIG["tol"]:
                break
        else:
            # No early stop: one polishing step on the shadow weights before saving them.
            x, y = next(iter(batches(width, 1)))[1:]
            polish = ((x @ shadow - y) ** 2).mean()
            polish.backward()  # expect: DL006
    return w, shadow, history


def main():
    w, shadow, history = fit()
    print([f"{h:.4f}" for h in history], shadow.tolist())


if __name__ == "__main__":
    main()
