"""Build a tiny regressor from creator partials, then fine-tune it on the chosen mode."""
import functools

import numpy as np

from dispatch_lint import runtime as dispatch

CREATORS = {
    "train": functools.partial(dispatch.tensor, device="autodiff:numpy"),
    "export": functools.partial(dispatch.placeholder, device="capture"),
}


def build_inputs(mode, batch):
    make = CREATORS[mode]
    if mode == "export":
        return make(batch.shape, name="x")
    return make(batch)


def fit_step(x, target, lr=0.1):
    w = dispatch.tensor([[0.5], [-0.25]], device=x.device)
    pred = x @ w
    loss = ((pred - dispatch.tensor(target, device=x.device)) ** 2).mean()
    return loss


def main():
    rng = np.random.default_rng(3)
    batch = rng.normal(size=(4, 2))
    target = batch @ np.array([[1.0], [2.0]])
    losses = {}
    for mode in sorted(CREATORS, key=len, reverse=True):
        x = build_inputs(mode, batch)
        losses[mode] = fit_step(x, target)
    program = dispatch.export(losses["export"])
    replayed = program.run({"x": batch})
    print(f"replayed loss {replayed.item():.4f}")
    grads = functools.reduce(lambda acc, key: acc or losses[key].backward(), ["train"], None)
    print("train grads ready:", grads is not None)
    tuned = losses["export"].backward()  # expect: DL001
    return tuned


if __name__ == "__main__":
    main()
