"""A callable loss module evaluated once on real data and once while capturing the graph."""
from dispatch_lint import runtime as dispatch


class SmoothL1:
    def __init__(self, beta=1.0):
        self.beta = beta
        self.calls = 0

    def __call__(self, pred, target):
        self.calls += 1
        diff = (pred - target).abs()
        return (diff * diff * (0.5 / self.beta)).mean()


def summarize(name, value):
    return f"{name}: {value.item():.4f}"


def main():
    loss_fn = SmoothL1(beta=0.5)
    pred = dispatch.rand((8,), seed=3)
    target = dispatch.zeros((8,))
    print(summarize("eval", loss_fn(pred, target)))

    cap = dispatch.Capture()
    ppred = dispatch.placeholder((8,), device=cap, name="pred")
    ptarget = dispatch.zeros((8,)).to_device(cap)
    traced = loss_fn(ppred, ptarget)
    program = dispatch.export(traced)
    print(summarize("traced", traced))  # expect: DL003
    return program, loss_fn.calls


if __name__ == "__main__":
    main()
