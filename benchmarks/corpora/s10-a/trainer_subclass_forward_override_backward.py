"""Run a base trainer step through a subclass that overrides forward with export-compatible inputs."""
from dispatch_lint import runtime as dispatch


class Trainer:
    def __init__(self, lr=0.1):
        self.lr = lr
        self.device = dispatch.Autodiff(dispatch.NumPy())
        self.w = dispatch.ones((3,), device=self.device).require_grad()
        self.losses = []

    def forward(self, x):
        return (x * self.w).sum(axis=1)

    def step(self, x):
        loss = (self.forward(x) ** 2).mean()
        grads = loss.backward()
        self.w = (self.w - self.lr * self.w.grad(grads)).require_grad()
        self.losses.append(loss)
        return loss


class TracingTrainer(Trainer):
    """Feeds the model the same placeholder inputs the exported graph will get."""

    def __init__(self, lr=0.1):
        super().__init__(lr)
        self.capture = dispatch.Capture()

    def forward(self, x):
        traced = dispatch.placeholder(x.shape, device=self.capture, name="x")
        return (traced * self.w.inner().to_device(self.capture)).sum(axis=1)


def main():
    x = dispatch.rand((6, 3), seed=0)
    base = Trainer()
    base.step(x)
    tracing = TracingTrainer(lr=0.05)
    tracing.step(x)  # expect: DL001
    print(len(base.losses), len(tracing.losses))


if __name__ == "__main__":
    main()
