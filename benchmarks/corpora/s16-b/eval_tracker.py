"""Evaluate a regressor eagerly and for export, logging losses through a closure-based tracker."""

import numpy as np

from dispatch_lint import runtime as dispatch


def make_tracker(name):
    history = []
    last = None
    steps = 0

    def record(loss):
        nonlocal last, steps
        steps += 1
        last = loss
        history.append(loss)

    def report():
        if last is None:
            return f"[{name}] no steps"
        return f"[{name}] step {steps}: loss {last:.4f} ({len(history)} recorded)"  # expect: DL003

    return record, report


def predict(weights, x):
    hidden = (x @ weights["w1"]).relu()
    return hidden @ weights["w2"]


def eval_loss(weights, x, y):
    return ((predict(weights, x) - y) ** 2).mean()


def export_loss(weights, batch_shape):
    cap = dispatch.Capture()
    x = dispatch.placeholder(batch_shape, device=cap, name="x")
    y = dispatch.placeholder((batch_shape[0], 1), device=cap, name="y")
    on_cap = {k: w.to_device(cap) for k, w in weights.items()}
    loss = eval_loss(on_cap, x, y)
    return dispatch.export(loss), loss


def main():
    rng = np.random.default_rng(3)
    weights = {
        "w1": dispatch.from_numpy(rng.normal(size=(4, 8)).astype(np.float32)),
        "w2": dispatch.from_numpy(rng.normal(size=(8, 1)).astype(np.float32)),
    }
    record, report = make_tracker("eval")
    for _ in range(3):
        x = dispatch.from_numpy(rng.normal(size=(16, 4)).astype(np.float32))
        y = dispatch.from_numpy(rng.normal(size=(16, 1)).astype(np.float32))
        record(eval_loss(weights, x, y))
    print(report())
    program, traced = export_loss(weights, (16, 4))
    record(traced)
    print(program)
    print(report())
