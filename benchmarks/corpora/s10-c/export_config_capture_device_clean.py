"""Export a trained MLP onto the capture device named in an export config, then verify it on Numba."""
from dataclasses import dataclass

import numpy as np

from dispatch_lint import runtime as dispatch


@dataclass
class ExportConfig:
    train_device: str = "numpy"
    export_device: str = "capture"
    verify_device: str = "numba"


def make_device(cfg, stage):
    return dispatch.device(getattr(cfg, f"{stage}_device"))


def trained_weights(cfg):
    dev = make_device(cfg, "train")
    rng = np.random.default_rng(7)
    return [dispatch.tensor(rng.normal(size=(3, 3)), device=dev) for _ in range(2)]


def export(cfg, weights):
    cap = make_device(cfg, "export")
    x = dispatch.placeholder((2, 3), device=cap, name="x")
    h = x
    for w in weights:
        h = (h @ w.to_device(cap)).relu()
    return dispatch.export(h)


def main():
    cfg = ExportConfig()
    weights = trained_weights(cfg)
    program = export(cfg, weights)
    out = program.run({"x": np.ones((2, 3), dtype=np.float32)}, device=make_device(cfg, "verify"))
    ref = (dispatch.ones((2, 3)) @ weights[0]).relu() @ weights[1]
    print(out.to_device(dispatch.NumPy()).sum().item(), ref.relu().sum().item())


if __name__ == "__main__":
    main()
