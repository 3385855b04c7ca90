"""The reference trainer: gradient steps on an autodiff NumPy device."""
from dispatch_lint import runtime as dispatch


class Trainer:
    def __init__(self, features, lr=0.1):
        self.lr = lr
        self.device = self.make_device()
        self.weight = dispatch.zeros((features, 1), device=self.device).require_grad()

    def make_device(self):
        return dispatch.Autodiff(dispatch.NumPy())

    def loss(self, x, y):
        return ((x @ self.weight - y) ** 2).mean()

    def step(self, x, y):
        loss = self.loss(x, y)
        grads = loss.backward()
        self.weight = self.device.wrap(self.weight.inner() - self.lr * self.weight.grad(grads))
        self.weight = self.weight.require_grad()
        return loss
