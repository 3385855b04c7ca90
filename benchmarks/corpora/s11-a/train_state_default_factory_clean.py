"""A training-state dataclass with default_factory fields for its device and loss history, plus an export device string."""
from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class TrainState:
    device: dispatch.Device = field(default_factory=lambda: dispatch.Autodiff(dispatch.NumPy()))
    export_device: str = "capture"
    history: list = field(default_factory=list)
    step: int = 0

    def fit(self, w, x, y):
        loss = ((x @ w - y) ** 2).mean()
        w = (w - 0.1 * w.grad(loss.backward())).require_grad()
        self.history.append(loss.item())
        self.step += 1
        return w

    def export(self, w, shape):
        dev = dispatch.device(self.export_device)
        x = dispatch.placeholder(shape, device=dev, name="x")
        return dispatch.export(x @ w.inner().to_device(dev))


def main():
    state = TrainState()
    w = dispatch.rand((3, 2), seed=0, device=state.device).require_grad()
    x, y = dispatch.rand((5, 3), seed=1), dispatch.rand((5, 2), seed=2)
    for _ in range(4):
        w = state.fit(w, x, y)
    program = state.export(w, (5, 3))
    out = program.run({"x": x})
    print(state.step, [f"{v:.3f}" for v in state.history], out.sum().item())


if __name__ == "__main__":
    main()
