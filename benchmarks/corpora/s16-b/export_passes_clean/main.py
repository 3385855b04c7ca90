"""Export the scorer built by the registered passes, replay it and check it against eager."""

import numpy as np

from dispatch_lint import runtime as dispatch

from . import head, preprocess  # noqa: F401  (register the passes)
from .registry import LOG, PASSES, run_passes


def trained_params(rng):
    return {
        "mean": dispatch.from_numpy(rng.normal(size=(5,)).astype(np.float32)),
        "std": dispatch.from_numpy((1 + rng.random(5)).astype(np.float32)),
        "w": dispatch.from_numpy(rng.normal(size=(5, 1)).astype(np.float32)),
        "b": dispatch.tensor([0.1]),
    }


def main():
    rng = np.random.default_rng(5)
    params = trained_params(rng)
    cap = dispatch.Capture()
    x = dispatch.placeholder((8, 5), device=cap, name="features")
    traced = run_passes(x, {k: v.to_device(cap) for k, v in params.items()})
    program = dispatch.Program.from_json(dispatch.export(traced).to_json())
    batch = rng.normal(size=(8, 5)).astype(np.float32)
    served = program.run({"features": batch}, device=dispatch.Numba())
    eager = run_passes(dispatch.from_numpy(batch), params)
    gap = float(np.abs(served.numpy() - eager.numpy()).max())
    print(len(PASSES), "passes;", *LOG, sep="\n  ")
    print(f"max gap {gap:.2e}")
    assert gap < 1e-5
