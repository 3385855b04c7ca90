"""Build the training device from the config, falling back to the CPU when the entry is missing."""
import logging

from dispatch_lint import runtime as dispatch

log = logging.getLogger(__name__)

CONFIG = {"train": {"batch": 4}, "export": {"device": "capture"}}


def main():
    try:
        dev = dispatch.Autodiff(dispatch.device(CONFIG["train"]["backend"]))
    except KeyError as missing:
        log.warning("no backend %s, running on NumPy", missing)
        dev = dispatch.NumPy()
    w = dispatch.ones((3,), device=dev)
    x = dispatch.rand((CONFIG["train"]["batch"], 3), seed=0, device=dev)
    loss = (x * w).sum(axis=1).mean()
    grads = loss.backward()  # expect: DL006
    return grads


if __name__ == "__main__":
    main()
