"""A linear layer that can hand out a copy of itself on another device for tracing."""
from dispatch_lint import runtime as dispatch


class Linear:
    def __init__(self, weight):
        self.weight = weight

    @classmethod
    def init(cls, shape, device):
        return cls(dispatch.rand(shape, seed=0, device=device).require_grad())

    def __call__(self, x):
        return x @ self.weight

    def for_export(self, device):
        weight = self.weight.inner() if self.weight.is_autodiff else self.weight
        return Linear(weight.to_device(device))

    def step(self, loss, lr=0.1):
        grad = self.weight.grad(loss.backward())
        self.weight = (self.weight - lr * grad).require_grad()
