"""A trainer that switches its device field to capture for export and restores it in a finally block."""
from dispatch_lint import runtime as dispatch


class Trainer:
    def __init__(self, dim):
        self.train_device = dispatch.Autodiff(dispatch.NumPy())
        self.device = self.train_device
        self.w = dispatch.rand((dim, 1), seed=0, device=self.device).require_grad()
        self.program = None

    def inputs(self, n, seed):
        if self.device.is_capture:
            return dispatch.placeholder((n, self.w.shape[0]), device=self.device, name="x")
        return dispatch.rand((n, self.w.shape[0]), seed=seed, device=self.device)

    def export(self):
        self.device = dispatch.Capture()
        try:
            x = self.inputs(4, seed=0)
            self.program = dispatch.export(x @ self.w.inner().to_device(self.device))
        finally:
            self.device = self.train_device

    def step(self, seed):
        loss = (self.inputs(4, seed) @ self.w).mean()
        grad = self.w.grad(loss.backward())
        self.w = (self.w - 0.1 * grad).require_grad()
        return float(loss)


def main():
    trainer = Trainer(3)
    print("loss", trainer.step(1))
    trainer.export()
    print("loss after export", trainer.step(2))
    print(trainer.program.run({"x": dispatch.ones((4, 3))}).tolist())


if __name__ == "__main__":
    main()
