"""Evaluate a traced scoring model and log a summary line per split from a SimpleNamespace config."""
from types import SimpleNamespace

from dispatch_lint import runtime as dispatch

CONFIG = SimpleNamespace(trace=True, batch=4, features=3, splits=("val", "test"), precision=3)


def make_device(cfg):
    return dispatch.Capture() if cfg.trace else dispatch.NumPy()


def batch_for(cfg, dev, split):
    if dev.is_capture:
        return dispatch.placeholder((cfg.batch, cfg.features), device=dev, name=split)
    return dispatch.rand((cfg.batch, cfg.features), seed=len(split), device=dev)


def summarize(split, loss, cfg):
    return f"{split}: loss={loss:.{cfg.precision}f}"


def main():
    cfg = CONFIG
    dev = make_device(cfg)
    w = dispatch.full((cfg.features, 1), 0.5).to_device(dev)
    lines = []
    for split in cfg.splits:
        x = batch_for(cfg, dev, split)
        loss = ((x @ w).tanh() ** 2).mean()
        lines.append(summarize(split, loss, cfg))  # expect: DL003
    return lines


if __name__ == "__main__":
    main()
