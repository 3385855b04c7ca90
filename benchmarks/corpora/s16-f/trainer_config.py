"""Pick the training device from a config dataclass and fit a small linear regression."""

from dataclasses import dataclass, field
from functools import partial

from dispatch_lint import runtime as dispatch

BACKENDS = ("numpy", "numba")
FEATURES = [[0.0, 1.0], [1.0, 0.5], [2.0, -1.0], [3.0, 0.0]]
TARGETS = [[1.0], [2.5], [3.0], [5.5]]


@dataclass
class TrainerConfig:
    backend: str = "numpy"
    lr: float = 0.05
    steps: int = 5
    history: list = field(default_factory=list)

    @property
    def device(self):
        match self.backend:
            case "numpy":
                return dispatch.Autodiff(dispatch.NumPy())
            case "numba":
                return dispatch.Autodiff(dispatch.Numba())
            case "export":
                return dispatch.Autodiff(dispatch.Capture())  # expect: DL004
        raise ValueError(f"unknown backend {self.backend!r}")


def _init_params(device, features):
    w = dispatch.zeros((features, 1), device=device).require_grad()
    b = dispatch.zeros((1,), device=device).require_grad()
    return [w, b]


def _step(params, grads, lr):
    return [(p - lr * p.grad(grads)).require_grad() for p in params]


def fit(cfg, features, targets):
    device = cfg.device
    x = dispatch.tensor(features, device=device)
    y = dispatch.tensor(targets, device=device)
    params = _init_params(device, x.shape[1])
    update = partial(_step, lr=cfg.lr)
    for _ in range(cfg.steps):
        w, b = params
        loss = (((x @ w + b) - y) ** 2).mean()
        params = update(params, loss.backward())
        cfg.history.append(loss.item())
    return params


def main():
    for backend in (*BACKENDS, "export"):
        cfg = TrainerConfig(backend=backend)
        fit(cfg, FEATURES, TARGETS)
        print(backend, [round(v, 3) for v in cfg.history])


if __name__ == "__main__":
    main()
