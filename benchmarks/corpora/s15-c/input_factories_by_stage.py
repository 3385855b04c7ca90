"""Build stage inputs from a table of partial creators and take one regression step per stage."""
import functools

import numpy as np

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def stage_factories(export_device):
    return {
        "warmup": functools.partial(dispatch.rand, (8, 4), seed=11, device=AD),
        "fit": functools.partial(dispatch.rand, (8, 4), seed=12, device=AD),
        "trace": functools.partial(dispatch.placeholder, (8, 4), device=export_device, name="x"),
    }


def main():
    cap = dispatch.Capture()
    factories = stage_factories(cap)
    weights = AD.wrap(dispatch.rand((4, 1), seed=3)).require_grad()
    history = []
    traced = None
    for stage, make_input in factories.items():
        x = make_input()
        w = weights.inner().to_device(cap) if stage == "trace" else weights
        loss = ((x @ w) ** 2).mean()
        if stage == "trace":
            traced = loss
        grads = loss.backward()  # expect: DL001
        step = w.grad(grads)
        weights = AD.wrap(weights.inner() - 0.05 * step).require_grad()
        history.append((stage, loss.inner().item()))
    program = dispatch.export(traced)
    value = program.run({"x": np.ones((8, 4), dtype=np.float32)})
    print(history, value.item())
    return history


if __name__ == "__main__":
    main()
