"""Linear warmup then cosine decay scheduler feeding a hand-written update loop."""
import math

from dispatch_lint import runtime as dispatch


class WarmupCosine:
    def __init__(self, base_lr, warmup, total, device="numpy"):
        self.base_lr = base_lr
        self.warmup = warmup
        self.total = total
        self.device = dispatch.device(device)
        self.history = []

    def __call__(self, step):
        if step < self.warmup:
            lr = self.base_lr * (step + 1) / self.warmup
        else:
            progress = (step - self.warmup) / max(1, self.total - self.warmup)
            lr = 0.5 * self.base_lr * (1 + math.cos(math.pi * progress))
        self.history.append(lr)
        return dispatch.full((), lr, device=self.device)


def main():
    device = dispatch.Autodiff(dispatch.NumPy())
    sched = WarmupCosine(0.1, warmup=2, total=6)
    w = dispatch.rand((3,), seed=7, device=device).require_grad()
    target = dispatch.tensor([0.5, -0.5, 1.0])
    for step in range(6):
        loss = ((w - target) ** 2).sum()
        grads = loss.backward()
        lr = sched(step)
        if step >= sched.warmup:
            lr = lr.to_device(w.device)  # expect: DL007
        w = device.wrap(w.inner() - lr * w.grad(grads)).require_grad()
    print([round(v, 4) for v in sched.history], w.inner().tolist())
    return w


if __name__ == "__main__":
    main()
