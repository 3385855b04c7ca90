"""Keep a training state and hand snapshots of its weights to a serving pool."""

from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards

TRAIN_DEVICE = dispatch.Autodiff(dispatch.NumPy())
SERVE_DEVICE = dispatch.NumPy()
_SNAPSHOTS = 0


def _param(shape, seed):
    return dispatch.rand(shape, seed=seed, device=TRAIN_DEVICE).require_grad()


@dataclass
class TrainState:
    sizes: list = field(default_factory=lambda: [(3, 4), (4, 1)])
    params: list = field(init=False)
    step: int = 0

    def __post_init__(self):
        self.params = [_param(shape, seed) for seed, shape in enumerate(self.sizes)]

    def loss(self, x):
        for w in self.params:
            x = (x @ w).tanh()
        return (x * x).mean()

    def update(self, x, lr=0.05):
        grads = self.loss(x).backward()
        self.params = [(w - lr * w.grad(grads)).require_grad() for w in self.params]
        self.step += 1

    def snapshot(self):
        global _SNAPSHOTS
        try:
            return [w.to_device(SERVE_DEVICE) for w in self.params]  # expect: DL007
        finally:
            _SNAPSHOTS += 1


def serve(weights, x):
    for w in weights:
        x = (guards.ensure_not_capture(x, what="request") @ w).tanh()
    return x


def main():
    state = TrainState()
    batch = dispatch.rand((5, 3), seed=7, device=TRAIN_DEVICE)
    for _ in range(4):
        state.update(batch)
    pool = {}
    pool.setdefault("v1", state.snapshot())
    request = dispatch.rand((2, 3), seed=8, device=SERVE_DEVICE)
    for name, weights in pool.items():
        print(name, state.step, _SNAPSHOTS, serve(weights, request).tolist())


if __name__ == "__main__":
    main()
