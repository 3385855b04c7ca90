"""Fine-tune a linear probe with a loss picked by name from a registry of loss callables."""

import functools

from dispatch_lint import runtime as dispatch


def squared_error(pred, target):
    diff = pred - target
    return (diff * diff).mean()


def weighted(loss_fn, weight, pred, target):
    return loss_fn(pred, target) * weight


LOSSES = {
    "mse": squared_error,
    "mse_half": functools.partial(weighted, squared_error, 0.5),
    "l1": lambda pred, target: (pred - target).abs().mean(),
}

DEVICES = {"train": "autodiff:numpy", "export": "capture"}

PROFILES = {
    "base": {"loss": "mse", "steps": 4, "lr": 0.2},
    "finetune": {"loss": "mse_half", "mode": "train"},
    "export": {"mode": "export", "name": "probe"},
}


def make_creators(mode):
    dev = dispatch.device(DEVICES.get(mode, "autodiff:numpy"))
    return {
        "weights": functools.partial(dispatch.rand, seed=3, device=dev),
        "data": functools.partial(dispatch.tensor, device=dev),
    }


def fit_probe(creators, config, features, labels):
    loss_fn = LOSSES.get(config["loss"], squared_error)
    w = creators["weights"]((3, 1)).require_grad()
    x, y = (creators["data"](rows) for rows in (features, labels))
    history = []
    for _ in range(config.get("steps", 1)):
        loss = loss_fn(x @ w, y)
        grads = loss.backward()
        w = (w - w.grad(grads) * config.get("lr", 0.1)).require_grad()
        history.append(loss.item())
    return w, history


def main():
    features = [[0.5, 1.0, -0.2], [1.5, -0.3, 0.8], [0.1, 0.4, 0.9]]
    labels = [[1.0], [0.0], [0.5]]
    config = dict(PROFILES["base"])
    for overlay in ("finetune", "export"):
        config.update(PROFILES[overlay])
    creators = make_creators(config["mode"])
    w, history = fit_probe(creators, config, features, labels)  # expect: DL001
    print(config["name"], w.inner().numpy().ravel(), history)
