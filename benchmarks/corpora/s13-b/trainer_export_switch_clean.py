"""Train a linear probe for a few steps, then switch the trainer to capture and export it."""
import numpy as np

from dispatch_lint import runtime as dispatch


class Trainer:
    def __init__(self, w):
        self.w = w
        self.device = dispatch.Autodiff(dispatch.NumPy())

    def begin_export(self):
        self.device = dispatch.Capture()

    def step(self, x, lr=0.1):
        match self.device:
            case dispatch.Autodiff():
                w = self.device.wrap(self.w).require_grad()
                loss = ((x @ w) ** 2).mean()
                grads = loss.backward()
                self.w = self.w - w.grad(grads) * lr
                return loss
            case dispatch.Capture():
                xs = dispatch.placeholder(x.shape, device=self.device, name="x")
                return dispatch.export(xs @ self.w.to_device(self.device))


def main():
    x = dispatch.from_numpy(np.ones((4, 3), dtype=np.float32))
    trainer = Trainer(dispatch.rand((3, 1), seed=4))
    losses = [trainer.step(x) for _ in range(3)]
    trainer.begin_export()
    program = trainer.step(x)
    out = program.run({"x": np.ones((4, 3), dtype=np.float32)})
    print(" ".join(f"{loss:.4f}" for loss in losses), out.shape)
    return losses, out


if __name__ == "__main__":
    main()
