"""Synthetic regression batches placed on the configured devices."""

import numpy as np

from dispatch_lint import runtime as dispatch


def make_batch(n, cfg, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).astype(np.float32)
    y = x @ np.array([[1.0], [0.5], [-1.0], [2.0]], dtype=np.float32)
    features = dispatch.from_numpy(x, device=cfg["model_device"])
    targets = dispatch.from_numpy(y, device=cfg["target_device"])
    return features, targets
