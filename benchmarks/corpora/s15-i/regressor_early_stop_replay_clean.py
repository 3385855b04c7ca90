"""Fit a two-layer regressor with early stopping, then export and replay it as a smoke test."""
import numpy as np

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


class TinyRegressor:
    def __init__(self, seed=0):
        self.w1 = dispatch.rand((4, 8), seed=seed, device=AD).require_grad()
        self.w2 = dispatch.rand((8, 1), seed=seed + 1, device=AD).require_grad()

    def __call__(self, x):
        return (x @ self.w1).tanh() @ self.w2

    def step(self, grads, lr):
        self.w1 = AD.wrap(self.w1.inner() - lr * self.w1.grad(grads)).require_grad()
        self.w2 = AD.wrap(self.w2.inner() - lr * self.w2.grad(grads)).require_grad()

    def frozen(self, device):
        clone = TinyRegressor.__new__(TinyRegressor)
        clone.w1 = self.w1.inner().to_device(device)
        clone.w2 = self.w2.inner().to_device(device)
        return clone


def main():
    model = TinyRegressor()
    x = dispatch.rand((16, 4), seed=3, device=AD)
    y = dispatch.ones((16, 1), device=AD)
    history = []
    for epoch in range(50):
        loss = ((model(x) - y) ** 2).mean()
        history.append(loss.item())
        if loss.item() < 0.05:
            print(f"epoch {epoch}: converged at {loss.item():.4f}")
            break
        model.step(loss.backward(), lr=0.1)
    cap = dispatch.Capture()
    traced = model.frozen(cap)(dispatch.placeholder((16, 4), device=cap, name="x"))
    out = dispatch.replay(traced, {"x": x.inner().numpy()})
    print(f"replayed mean {out.mean():.3f} after {len(history)} epochs")
    return bool(np.allclose(out.numpy(), model(x).inner().numpy(), atol=1e-5))


if __name__ == "__main__":
    main()
