"""Warm-start a classifier head on the device named in the run config, with a capture fallback."""
from dispatch_lint import runtime as dispatch


def load_run_config(overrides=None):
    config = {"name": "head-ft", "train_device": "autodiff:numpy", "epochs": 2}
    config.update(overrides or {})
    return config


def init_head(config, n_in, n_out):
    dev = config.get("train_device", "capture")
    w = dispatch.rand((n_in, n_out), seed=0, device=dev)
    return w.require_grad()


def main():
    config = load_run_config({"epochs": 3})
    w = init_head(config, 4, 2)
    x = dispatch.rand((8, 4), seed=1)
    history = []
    for epoch in range(config.get("epochs", 1)):
        loss = ((x @ w) ** 2).mean()
        grads = loss.backward()
        w = (w - 0.1 * w.grad(grads)).require_grad()
        history.append((epoch, loss.item()))
    print(config["name"], history[-1])


if __name__ == "__main__":
    main()
