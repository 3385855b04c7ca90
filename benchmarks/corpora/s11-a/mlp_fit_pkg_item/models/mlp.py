"""A multi-layer perceptron whose weights live on the configured device."""
from dispatch_lint import runtime as dispatch


class MLP:
    def __init__(self, weights, device):
        self.weights = weights
        self.device = device

    @classmethod
    def from_config(cls, cfg):
        dev = dispatch.device(cfg.device)
        weights = []
        for i, (a, b) in enumerate(zip(cfg.sizes, cfg.sizes[1:])):
            w = dispatch.rand((a, b), seed=cfg.seed + i, device=dev) * 0.5
            weights.append(w.require_grad() if dev.is_autodiff else w)
        return cls(weights, dev)

    def __call__(self, x):
        for w in self.weights[:-1]:
            x = (x @ w).tanh()
        return x @ self.weights[-1]
