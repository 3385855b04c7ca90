"""Replace traced outputs with their replayed values in place, then format each through a checked helper."""
import numpy as np

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


def checked(t, what):
    guards.ensure_not_capture(t, what=what)
    return t


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((3, 2), device=cap, name="x")
    w = dispatch.tensor([[1.0], [-1.0]]).to_device(cap)
    named = {"logit": (x @ w).sum(), "norm": (x * x).sum().sqrt()}

    program = dispatch.export(*named.values())
    replayed = program.run({"x": np.ones((3, 2), dtype=np.float32)})
    for key, value in zip(list(named), replayed):
        named[key] = value

    report = {}
    for key in sorted(named):
        value = checked(named[key], what=key)
        report[key] = f"{value:.3f}"
    print(report)
    return report


if __name__ == "__main__":
    main()
