"""Warm-start a classifier head whose device comes from a run config with a fallback default."""
from dispatch_lint import runtime as dispatch


def load_run_config():
    config = {"name": "head-ft", "device": "autodiff:numpy", "epochs": 2}
    config.update({"epochs": 3, "warmup": 1})
    return config


def init_head(config, n_in, n_out):
    # Export tooling reads the same config, and its default is a capture device.
    dev = config.get("train_device", "capture")
    w = dispatch.rand((n_in, n_out), seed=0, device=dev)
    return w.require_grad()  # expect: DL001


def main():
    config = load_run_config()
    w = init_head(config, 4, 2)
    x = dispatch.rand((8, 4), seed=1)
    for _ in range(config["epochs"]):
        loss = ((x @ w) ** 2).mean()
        grads = loss.backward()
        w = (w - 0.1 * w.grad(grads)).require_grad()
    print(config["name"], w.shape)


if __name__ == "__main__":
    main()
