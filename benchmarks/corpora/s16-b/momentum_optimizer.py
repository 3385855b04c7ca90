"""Train a two-layer regressor with a momentum optimizer whose update rule is a stored closure."""

import numpy as np

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def make_momentum_update(lr, beta, velocity):
    def update(name, w, g):
        v = velocity.get(name)
        v = g if v is None else v * beta + g
        velocity[name] = v
        new_w = w.inner() - v * lr
        return new_w.to_device(w.device).require_grad()  # expect: DL007

    return update


class Momentum:
    def __init__(self, lr=0.05, beta=0.9):
        self.velocity = {}
        self._update = make_momentum_update(lr, beta, self.velocity)

    def step(self, params, grads):
        return {name: self._update(name, w, w.grad(grads)) for name, w in params.items()}


def init_params(rng):
    shapes = {"w1": (3, 16), "w2": (16, 1)}
    return {
        name: AD.wrap(dispatch.from_numpy(0.3 * rng.normal(size=s).astype(np.float32))).require_grad()
        for name, s in shapes.items()
    }


def loss_fn(params, x, y):
    hidden = (x @ params["w1"]).relu()
    return ((hidden @ params["w2"] - y) ** 2).mean()


def main():
    rng = np.random.default_rng(11)
    x = dispatch.from_numpy(rng.normal(size=(128, 3)).astype(np.float32))
    y = (x * dispatch.tensor([1.0, -2.0, 0.5])).sum(axis=1, keepdims=True)
    params = init_params(rng)
    opt = Momentum()
    for step in range(20):
        loss = loss_fn(params, x, y)
        params = opt.step(params, loss.backward())
        if step % 5 == 0:
            print(step, f"{loss.item():.4f}")
