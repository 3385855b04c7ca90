"""Pick the training device from a nested config with a fallback, then run one SGD step."""
import logging

from dispatch_lint import runtime as dispatch

log = logging.getLogger(__name__)

CONFIG = {
    "export": {"device": "capture", "name": "policy"},
    "train": {"lr": 0.1},
}


def resolve_train_device(cfg):
    section = cfg.get("train", {})
    try:
        return dispatch.device(section["device"])
    except KeyError:
        log.warning("no train device configured, using autodiff:numpy")
        return dispatch.device("autodiff:numpy")


def main():
    dev = resolve_train_device(CONFIG)
    w = dispatch.tensor([0.5, -0.25, 1.0], device=dev).require_grad()
    x = dispatch.tensor([1.0, 2.0, 3.0], device=dev)
    loss = ((w * x).sum() - 1.0) ** 2
    grads = loss.backward()
    g = w.grad(grads)
    new_w = w.inner() - CONFIG["train"]["lr"] * g
    log.info("export target %s, loss %.4f", CONFIG["export"]["device"], loss.item())
    return new_w.tolist()


if __name__ == "__main__":
    main()
