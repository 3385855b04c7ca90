"""Log a short summary line for each output of an exported multi-head model."""
import logging

from dispatch_lint import runtime as dispatch

log = logging.getLogger("export")


def describe(name, t, precise=False):
    if precise:
        return f"{name}: {t.mean():.4f}"
    return f"{name}: {t} shape={t.shape}"


def heads(x, weights):
    return {name: (x @ w).tanh() for name, w in weights.items()}


def main():
    weights = {"cls": dispatch.rand((3, 2), seed=50), "reg": dispatch.rand((3, 1), seed=51)}
    eager = heads(dispatch.rand((4, 3), seed=52), weights)
    for name, out in eager.items():
        log.info(describe(name, out, precise=True))

    cap = dispatch.Capture()
    x = dispatch.placeholder((4, 3), device=cap, name="x")
    traced = heads(x, {k: w.to_device(cap) for k, w in weights.items()})
    lines = [describe(name, out) for name, out in traced.items()]
    lines.append(describe("cls", traced["cls"], precise=len(lines) > 1))  # expect: DL003
    log.info("; ".join(lines))
    return dispatch.export(*traced.values())


if __name__ == "__main__":
    main()
