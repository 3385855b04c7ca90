"""Evaluate a classifier, replay its exported copy and print both sets of metrics."""
import logging

import numpy as np

from dispatch_lint import runtime as dispatch

from eval_guards_pkg import evaluate

log = logging.getLogger(__name__)


def main():
    x = dispatch.rand((6, 2), seed=7)
    w = dispatch.tensor([[1.0], [-1.0]])
    eager = {"mean_logit": (x @ w).mean(), "max_logit": (x @ w).max()}

    cap = dispatch.Capture()
    xp = dispatch.placeholder((6, 2), device=cap, name="x")
    traced = {"mean_logit": (xp @ w.to_device(cap)).mean()}
    merged = {**eager, "traced_mean": traced["mean_logit"]}
    try:
        replayed = dispatch.replay(traced["mean_logit"], {"x": x.numpy()})
    except dispatch.errors.DispatchError:
        log.exception("replay failed")
        raise
    merged["replayed_mean"] = replayed
    values = evaluate.collect(merged)
    print(evaluate.render(values))
    assert np.isclose(values["replayed_mean"], values["mean_logit"])
    return values


if __name__ == "__main__":
    main()
