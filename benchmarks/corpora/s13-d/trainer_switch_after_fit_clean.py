"""Fit a small regressor, then switch the trainer to capture for export after the last step."""
from dispatch_lint import runtime as dispatch


class Trainer:
    def __init__(self):
        self.device = dispatch.Autodiff(dispatch.NumPy())
        self.weight = dispatch.rand((2, 1), seed=5)

    def fit(self, x, y, steps=4):
        for _ in range(steps):
            w = self.device.wrap(self.weight).require_grad()
            loss = ((self.device.wrap(x) @ w - self.device.wrap(y)) ** 2).mean()
            grads = loss.backward()
            self.weight = self.weight - 0.1 * w.grad(grads)
        return loss.inner().item()

    def start_export(self):
        self.device = dispatch.Capture()

    def trace(self):
        x = dispatch.placeholder((4, 2), device=self.device, name="x")
        return dispatch.export(x @ self.weight.to_device(self.device))


def main():
    trainer = Trainer()
    x = dispatch.rand((4, 2), seed=6)
    y = x.sum(axis=1).reshape((4, 1))
    final = trainer.fit(x, y)
    trainer.start_export()
    program = trainer.trace()
    print(f"loss {final:.4f}", program)
    return program.run({"x": x}).numpy()


if __name__ == "__main__":
    main()
