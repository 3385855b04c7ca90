"""Warm up a scale parameter with a static device helper and a step-size schedule."""
import math

from dispatch_lint import runtime as dispatch


class Warmup:
    def __init__(self, base_lr, warmup_steps):
        self.base_lr = base_lr
        self.warmup_steps = warmup_steps

    @staticmethod
    def trainable(device):
        return dispatch.Autodiff(device)

    @staticmethod
    def cosine(step, total):
        return 0.5 * (1 + math.cos(math.pi * step / total))

    def lr(self, step):
        if step < self.warmup_steps:
            return self.base_lr * (step + 1) / self.warmup_steps
        return self.base_lr * self.cosine(step - self.warmup_steps, self.warmup_steps)


class ScaleParam:
    def __init__(self, value, device):
        self.value = dispatch.full((1,), value, device=device)

    @property
    def device(self):
        return self.value.device


def main():
    sched = Warmup(0.2, 2)
    param = ScaleParam(1.0, Warmup.trainable(dispatch.NumPy()))
    data = dispatch.tensor([0.5, 1.5, 2.5])
    for step in range(4):
        s = param.value.require_grad()
        loss = ((data * s - 1.0) ** 2).sum()
        grads = loss.backward()
        param.value = param.device.wrap(s.inner() - sched.lr(step) * s.grad(grads))
    eval_dev = Warmup.trainable(param.device)  # expect: DL005
    return param.value.to_device(eval_dev)


if __name__ == "__main__":
    main()
