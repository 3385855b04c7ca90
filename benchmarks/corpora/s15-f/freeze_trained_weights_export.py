"""Train a small regressor with autodiff, then freeze its weights into a captured program."""
import numpy as np

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


def fit(x, y, steps=20, lr=0.05):
    train_dev = dispatch.Autodiff(dispatch.NumPy())
    params = {
        "w": dispatch.rand((3, 1), seed=3, device=train_dev),
        "b": dispatch.zeros((1,), device=train_dev),
    }
    xs, ys = train_dev.wrap(x), train_dev.wrap(y)
    with guards.training():
        for _ in range(steps):
            params = {k: v.require_grad() for k, v in params.items()}
            loss = ((xs @ params["w"] + params["b"] - ys) ** 2).mean()
            grads = loss.backward()
            params = {k: v - lr * v.grad(grads) for k, v in params.items()}
    return params


def freeze_into(cap, params):
    return {name: value.to_device(cap) for name, value in params.items()}


def main():
    x = dispatch.rand((8, 3), seed=0)
    y = dispatch.rand((8, 1), seed=1)
    params = fit(x, y)
    cap = dispatch.Capture()
    frozen = freeze_into(cap, params)  # expect: DL007
    feats = dispatch.placeholder((8, 3), device=cap, name="feats")
    pred = feats @ frozen["w"] + frozen["b"]
    program = dispatch.export(pred)
    out = program.run({"feats": x.numpy()})
    return np.asarray(out.numpy()).shape


if __name__ == "__main__":
    main()
