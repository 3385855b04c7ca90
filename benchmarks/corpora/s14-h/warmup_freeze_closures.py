"""Run a warmup schedule where a sibling closure freezes the encoder after N steps."""
from dispatch_lint import runtime as dispatch


def make_trainer(seed=0, lr=0.05):
    dev = dispatch.Autodiff(dispatch.NumPy())
    w = dispatch.rand((3, 3), seed=seed)
    steps = 0

    def lift(t):
        return dev.wrap(t) if dev.is_autodiff else t.to_device(dev)

    def step(x):
        nonlocal w, steps
        steps += 1
        wt = lift(w)
        if dev.is_autodiff:
            wt = wt.require_grad()
        loss = ((lift(x) @ wt).tanh() ** 2).mean()
        grads = loss.backward()
        w = w - lr * wt.grad(grads)
        return steps

    def freeze():
        nonlocal dev
        dev = dispatch.NumPy()

    def count():
        return steps

    return step, freeze, count


def main():
    step, freeze, count = make_trainer()
    schedule = [("train", 2), ("freeze", 0), ("train", 1)]
    batches = iter(dispatch.rand((4, 3), seed=s) for s in range(10))
    for phase, n in schedule:
        if phase == "freeze":
            freeze()
            continue
        for _ in range(n):
            step(next(batches))  # expect: DL006
    return count()


if __name__ == "__main__":
    main()
