"""A small regression trainer whose classmethod factories pick the device for each job."""
from dispatch_lint import runtime as dispatch


class Trainer:
    def __init__(self, device, lr=0.05):
        self.device = device
        self.lr = lr
        self.history = []

    @classmethod
    def for_training(cls, lr=0.05):
        return cls(dispatch.Autodiff(dispatch.NumPy()), lr=lr)

    @classmethod
    def for_export(cls):
        return cls(dispatch.Capture(), lr=0.0)

    def init_weights(self, n):
        return dispatch.rand((n, 1), seed=1, device=self.device)

    def step(self, x, w):
        loss = ((x @ w) ** 2).mean()
        grads = loss.backward()
        self.history.append(grads)
        return loss


def main():
    trainer = Trainer.for_training(lr=0.1)
    x = dispatch.ones((4, 3), device=trainer.device)
    w = trainer.init_weights(3).require_grad()
    trainer.step(x, w)

    exporter = Trainer.for_export()
    px = dispatch.placeholder((4, 3), device=exporter.device, name="x")
    pw = w.inner().to_device(exporter.device)
    exporter.step(px, pw)  # expect: DL001
    return len(trainer.history)


if __name__ == "__main__":
    main()
