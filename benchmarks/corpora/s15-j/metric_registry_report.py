"""Compute the registered eval metrics on an exported head and print them with per-metric formats."""
from dispatch_lint import runtime as dispatch

METRICS = {}
FORMATS = {"mae": ".4f", "peak": ".2e"}


def metric(name):
    def register(fn):
        METRICS[name] = fn
        return fn
    return register


@metric("mae")
def mean_abs_error(pred, target):
    return (pred - target).abs().mean()


@metric("peak")
def peak_activation(pred, target):
    return pred.max()


def render(name, value, width=8):
    spec = FORMATS.get(name, ".3f")
    return f"{name:<{width}}{value:{spec}}"


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((4, 3), device=cap, name="x")
    w = dispatch.rand((3, 1), seed=4).to_device(cap)
    target = dispatch.full((4, 1), 0.5).to_device(cap)
    pred = (x @ w).sigmoid()
    traced = {name: fn(pred, target) for name, fn in METRICS.items()}
    program = dispatch.export(*traced.values())
    batch = dispatch.rand((4, 3), seed=9)
    replayed = dict(zip(traced, program.run({"x": batch})))
    lines = [render(name, value) for name, value in traced.items()]  # expect: DL003
    return lines, replayed


if __name__ == "__main__":
    main()
