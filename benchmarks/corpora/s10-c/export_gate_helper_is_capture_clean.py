"""Decide per output whether to export it or log its value, through a small predicate helper."""
import numpy as np

from dispatch_lint import runtime as dispatch


def _needs_export(t):
    return dispatch.is_capture(t)


def collect(outputs):
    to_export, logged = [], {}
    for name, t in outputs.items():
        if _needs_export(t):
            to_export.append(t)
            continue
        logged[name] = round(t.mean().item(), 4)
    return to_export, logged


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((2, 3), device=cap, name="x")
    w = dispatch.tensor(np.eye(3, dtype=np.float32), device=cap)
    outputs = {
        "logits": x @ w,
        "bias_norm": dispatch.tensor([0.3, 0.4]).sqrt(),
    }
    to_export, logged = collect(outputs)
    program = dispatch.export(*to_export)
    print(logged, program.run({"x": np.ones((2, 3), dtype=np.float32)}))


if __name__ == "__main__":
    main()
