"""Run momentum SGD whose state buffers are placed on a device taken from merged hyperparameters."""
from dispatch_lint import runtime as dispatch

DEFAULTS = {"lr": 0.1, "momentum": 0.9, "state_device": "numpy"}


class MomentumSGD:
    def __init__(self, params, **overrides):
        self.hparams = dict(DEFAULTS)
        self.hparams.update(overrides)
        self.params = params
        self.state = {}

    def buffer(self, name, like):
        if name not in self.state:
            self.state[name] = dispatch.zeros(like.shape, device=self.hparams["state_device"])
        return self.state[name]

    def apply(self, grads):
        lr, mu = self.hparams["lr"], self.hparams["momentum"]
        for name, g in grads.items():
            v = mu * self.buffer(name, g) + g
            self.state[name] = v
            self.params[name] = self.params[name] - lr * v


def main():
    device = dispatch.Autodiff(dispatch.NumPy())
    params = {"w": dispatch.rand((3,), seed=0), "b": dispatch.zeros((1,))}
    # The fused kernels are faster for the element-wise buffer updates.
    opt = MomentumSGD(params, lr=0.05, state_device="numba")
    x = dispatch.rand((4, 3), seed=1)
    w = device.wrap(params["w"]).require_grad()
    b = device.wrap(params["b"]).require_grad()
    grads = ((x * w).sum(axis=1) + b).mean().backward()
    opt.apply({"w": w.grad(grads), "b": b.grad(grads)})  # expect: DL008
    print(opt.params["w"].tolist())


if __name__ == "__main__":
    main()
