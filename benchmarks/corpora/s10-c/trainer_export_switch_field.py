"""A trainer whose device field is switched to capture by its export preparation method."""
import numpy as np

from dispatch_lint import runtime as dispatch


class Trainer:
    def __init__(self):
        self.device = dispatch.Autodiff(dispatch.NumPy())
        self.w = np.array([[0.1], [0.2]], dtype=np.float32)
        self.step_count = 0

    def prepare_export(self):
        self.device = dispatch.Capture()

    def train_step(self, batch, target):
        w = dispatch.tensor(self.w, device=self.device).require_grad()
        x = dispatch.tensor(batch, device=self.device)
        loss = ((x @ w - target) ** 2).mean()
        grads = loss.backward()
        self.w = self.w - 0.05 * w.grad(grads).numpy()
        self.step_count += 1
        return loss


def main():
    trainer = Trainer()
    batch = np.array([[1.0, 2.0], [0.5, -1.0]], dtype=np.float32)
    target = np.array([[1.0], [0.0]], dtype=np.float32)
    trainer.train_step(batch, target)
    trainer.prepare_export()
    trainer.train_step(batch, target)  # expect: DL001
    print(trainer.step_count)


if __name__ == "__main__":
    main()
