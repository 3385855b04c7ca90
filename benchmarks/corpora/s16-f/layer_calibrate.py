"""Train a linear layer with a no-capture step, then calibrate its input scale."""

from dataclasses import dataclass, field
from functools import partial

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards

AUTODIFF = dispatch.Autodiff(dispatch.NumPy())
LEARNING_RATES = {"warmup": 0.01, "main": 0.1}


@dataclass
class Layer:
    features: int
    outputs: int
    device: dispatch.Device = field(default_factory=lambda: AUTODIFF)
    weight: dispatch.Tensor = field(init=False)

    def __post_init__(self):
        w = dispatch.rand((self.features, self.outputs), seed=0, device=self.device)
        self.weight = w.require_grad()

    @property
    def shape(self):
        return self.weight.shape

    def __call__(self, x):
        return (x @ self.weight).tanh()

    def calibrate(self, x):
        scale = dispatch.ones((1, self.features))
        scale = scale.require_grad()  # expect: DL006
        grads = (self(x * scale) ** 2).sum().backward()
        return scale.grad(grads)


@guards.no_capture
def train_step(layer, x, y, lr):
    loss = ((layer(x) - y) ** 2).mean()
    grads = loss.backward()
    layer.weight = (layer.weight - lr * layer.weight.grad(grads)).require_grad()
    return loss.item()


def main():
    layer = Layer(features=3, outputs=2)
    x = dispatch.rand((6, 3), seed=1, device=layer.device)
    y = dispatch.rand((6, 2), seed=2, device=layer.device)
    for phase in ("warmup", "main", "cooldown"):
        step = partial(train_step, lr=LEARNING_RATES.get(phase, 0.05))
        losses = [step(layer, x, y) for _ in range(3)]
        print(phase, layer.shape, [round(v, 4) for v in losses])
    print("input scale grad:", layer.calibrate(x))


if __name__ == "__main__":
    main()
