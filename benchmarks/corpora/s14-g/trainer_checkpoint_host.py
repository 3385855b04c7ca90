"""Fit a tiny linear model with a trainer object and write a host checkpoint at the end."""
from dataclasses import dataclass, field

import numpy as np

from dispatch_lint import runtime as dispatch


@dataclass
class LinearModel:
    weight: dispatch.Tensor
    bias: dispatch.Tensor

    def __call__(self, x):
        return x @ self.weight + self.bias

    def parameters(self):
        return {"weight": self.weight, "bias": self.bias}


@dataclass
class Trainer:
    model: LinearModel
    lr: float = 0.1
    losses: list = field(default_factory=list)

    def fit(self, x, y, epochs=3):
        ad = dispatch.Autodiff(dispatch.NumPy())
        for _ in range(epochs):
            w, b = self.model.weight.require_grad(), self.model.bias.require_grad()
            self.model = LinearModel(w, b)
            loss = ((self.model(x) - y) ** 2).mean()
            grads = loss.backward()
            self.model = LinearModel(ad.wrap(w.inner() - self.lr * w.grad(grads)),
                                     ad.wrap(b.inner() - self.lr * b.grad(grads)))
            self.losses.append(loss.inner().item())

    def checkpoint(self):
        host = {k: v.to_device(dispatch.NumPy()) for k, v in self.model.parameters().items()}
        return {k: np.asarray(v.numpy()) for k, v in host.items()}


def main():
    ad = dispatch.Autodiff(dispatch.NumPy())
    model = LinearModel(dispatch.rand((3, 1), seed=2, device=ad), dispatch.zeros((1,), device=ad))
    trainer = Trainer(model)
    trainer.fit(dispatch.ones((4, 3)), dispatch.zeros((4, 1)))
    print("losses", [round(v, 4) for v in trainer.losses])
    state = trainer.checkpoint()  # expect: DL007
    return state


if __name__ == "__main__":
    main()
