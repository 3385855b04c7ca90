"""Probe a linear layer's sensitivity with a dataclass-held input and a gradient step."""
from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class Probe:
    shape: tuple
    name: str = "probe_x"
    device: dispatch.Device = field(default_factory=dispatch.Capture)

    @property
    def input(self):
        return dispatch.placeholder(self.shape, device=self.device, name=self.name)

    @property
    def width(self):
        return self.shape[-1]


def make_weight(width, seed=0):
    base = dispatch.rand((width, 2), seed=seed)
    return dispatch.Autodiff(dispatch.NumPy()).wrap(base).require_grad()


def main():
    probe = Probe(shape=(5, 3))
    weight = make_weight(probe.width)
    x = probe.input
    activations = (x * 0.5).tanh()
    loss = activations.sum() * 0.2
    print("probe loss node:", repr(loss))
    grads = loss.backward()  # expect: DL001
    return weight.grad(grads)


if __name__ == "__main__":
    main()
