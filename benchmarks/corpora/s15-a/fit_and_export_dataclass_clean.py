"""Fit a tiny regressor, then export its forward pass and check it against the fitted values."""
from dataclasses import dataclass, field

import numpy as np

from dispatch_lint import runtime as dispatch


@dataclass
class RegressorSetup:
    features: int = 3
    lr: float = 0.05
    train_device: dispatch.Device = field(default_factory=lambda: dispatch.Autodiff(dispatch.NumPy()))
    export_device: dispatch.Device = field(default_factory=dispatch.Capture)
    history: list = field(default_factory=list)

    def forward(self, x, w):
        return (x @ w).tanh()


def main():
    setup = RegressorSetup()
    w = dispatch.rand((setup.features, 1), seed=5, device=setup.train_device).require_grad()
    x = dispatch.rand((8, setup.features), seed=6, device=setup.train_device)
    for _ in range(3):
        loss = (setup.forward(x, w) ** 2).mean()
        grads = loss.backward()
        setup.history.append(loss.item())
        w = setup.train_device.wrap(w.inner() - setup.lr * w.grad(grads)).require_grad()
    frozen = w.inner().to_device(setup.export_device)
    inp = dispatch.placeholder((8, setup.features), device=setup.export_device, name="x")
    out = setup.forward(inp, frozen)
    replayed = dispatch.replay(out, {"x": x.inner().numpy()})
    expected = setup.forward(x.inner(), w.inner())
    assert np.allclose(replayed.numpy(), expected.numpy(), atol=1e-5)
    print(f"final loss {setup.history[-1]:.4f}")
    return replayed.tolist()


if __name__ == "__main__":
    main()
