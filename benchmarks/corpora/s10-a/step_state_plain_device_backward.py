"""Fit a scalar bias with a dataclass step state whose tensors default to a device string."""
from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class StepState:
    device: str = "numpy"
    step: int = 0
    losses: list = field(default_factory=list)

    @property
    def last_loss(self):
        return self.losses[-1] if self.losses else None

    def param(self, value):
        return dispatch.full((1,), value, device=self.device)


def main():
    state = StepState()
    bias = state.param(0.5)
    target = dispatch.tensor([2.0])
    for _ in range(3):
        loss = ((bias - target) ** 2).sum()
        state.losses.append(loss)
        grads = loss.backward()  # expect: DL006
        bias = bias - 0.1 * bias.grad(grads)
        state.step += 1
    print(state.step, state.last_loss)


if __name__ == "__main__":
    main()
