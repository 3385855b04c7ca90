"""Resolve the training device from a run config and fit a bias term for a few steps."""
from dataclasses import dataclass

from dispatch_lint import runtime as dispatch


@dataclass
class RunConfig:
    backend: str = "numpy"
    autodiff: bool = True
    steps: int = 2
    lr: float = 0.1

    @property
    def device(self):
        base = dispatch.device(self.backend)
        if self.autodiff:
            return dispatch.Autodiff(base)
        return base

    @classmethod
    def from_args(cls, args):
        return cls(backend=args.get("backend", "numpy"), steps=int(args.get("steps", 2)))


def fit_bias(dev, steps, lr):
    bias = dispatch.zeros((3,), device=dev).require_grad()
    for _ in range(steps):
        loss = ((bias - 1.0) ** 2).sum()
        grads = loss.backward()
        bias = dev.wrap(bias.inner() - lr * bias.grad(grads)).require_grad()
    return bias


def main():
    defaults = RunConfig()
    print("default device", defaults.device)
    cfg = RunConfig.from_args({"backend": "capture", "steps": "3"})
    dev = cfg.device  # expect: DL004
    bias = fit_bias(dev, cfg.steps, cfg.lr)
    return bias.inner().tolist()


if __name__ == "__main__":
    main()
