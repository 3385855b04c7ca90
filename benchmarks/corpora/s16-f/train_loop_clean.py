"""Train inside guards.training() and publish plain weights for serving."""

from dataclasses import dataclass, field
from functools import partial

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards

_BEST = {"loss": None, "step": -1}


@dataclass
class Model:
    sizes: tuple = ((3, 4), (4, 1))
    device: dispatch.Device = field(default_factory=lambda: dispatch.device("autodiff:numpy"))
    params: list = field(default_factory=list)

    def __post_init__(self):
        for seed, shape in enumerate(self.sizes):
            w = dispatch.rand(shape, seed=seed, device=self.device) * 0.5
            self.params.append(w.require_grad())

    @property
    def plain(self):
        return [p.inner() for p in self.params]

    def __call__(self, x):
        for w in self.params[:-1]:
            x = (x @ w).relu()
        return x @ self.params[-1]


def _record(step, loss):
    if _BEST["loss"] is not None and loss >= _BEST["loss"]:
        return False
    _BEST.update(loss=loss, step=step)
    return True


@guards.no_capture
def train_step(model, x, y, lr):
    loss = ((model(x) - y) ** 2).mean()
    grads = loss.backward()
    new = []
    for p, g in zip(model.params, [p.grad(grads) for p in model.params]):
        new.append((p - lr * g).require_grad())
    model.params = new
    return loss.item()


def main():
    model = Model()
    x = dispatch.rand((8, 3), seed=10, device=model.device)
    y = x.sum(axis=1, keepdims=True) * 0.3
    step = partial(train_step, lr=0.05)
    try:
        with guards.training():
            for i in range(6):
                _record(i, step(model, x, y))
    finally:
        print("best:", _BEST)
    served = model.plain
    request = dispatch.rand((2, 3), seed=11)
    print([tuple(w.shape) for w in served], (request @ served[0]).relu() @ served[1])


if __name__ == "__main__":
    main()
