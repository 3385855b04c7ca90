"""Dispatch train and export steps through a table of closures keyed by mode."""
import numpy as np

from dispatch_lint import runtime as dispatch


def build_steps(weights, lr=0.05):
    ad = dispatch.Autodiff(dispatch.NumPy())
    state = {"w": weights}

    def train_step(x, y):
        w = ad.wrap(state["w"]).require_grad()
        loss = ((dispatch.from_numpy(x, device=ad) @ w - dispatch.from_numpy(y, device=ad)) ** 2).mean()
        grads = loss.backward()
        state["w"] = w.inner() - lr * w.grad(grads)
        return loss.inner()

    def export_step(x, y):
        cap = dispatch.Capture()
        xs = dispatch.placeholder(x.shape, device=cap, name="x")
        out = (xs @ state["w"].to_device(cap)).mean()
        return dispatch.replay(out, {"x": x})

    return {"train": train_step, "export": export_step}


def main():
    rng = np.random.default_rng(0)
    steps = build_steps(dispatch.rand((3, 1), seed=1))
    schedule = ["train", "train", "export", "train", "export"]
    log = []
    for mode in schedule:
        x = rng.random((5, 3)).astype(np.float32)
        y = rng.random((5, 1)).astype(np.float32)
        value = steps[mode](x, y)
        log.append((mode, value.item()))
    return {mode: [v for m, v in log if m == mode] for mode in steps.keys()}


if __name__ == "__main__":
    main()
