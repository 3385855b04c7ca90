"""Merge training metrics with the metrics of the export probe and log them as floats."""
import logging

import numpy as np

from dispatch_lint import runtime as dispatch

log = logging.getLogger(__name__)


def train_metrics(w, x, y):
    pred = x @ w
    err = pred - y
    return {"mse": (err * err).mean(), "mae": err.abs().mean()}


def export_metrics(w):
    cap = dispatch.Capture()
    xs = dispatch.placeholder((8, 4), device=cap, name="features")
    out = xs @ w.to_device(cap)
    return {"export_mean": out.mean(), "export_peak": out.max()}


def main():
    rng = np.random.default_rng(3)
    x = dispatch.from_numpy(rng.random((8, 4)).astype(np.float32))
    y = dispatch.from_numpy(rng.random((8, 1)).astype(np.float32))
    w = dispatch.rand((4, 1), seed=7)

    metrics = {}
    metrics.update(train_metrics(w, x, y))
    metrics.update(export_metrics(w))

    names = sorted(metrics)
    values = [v.item() for v in metrics.values()]  # expect: DL003
    for name, value in zip(names, values):
        log.info("%s = %.4f", name, value)
    return dict(zip(names, values))


if __name__ == "__main__":
    main()
