"""A trainer that traces its forward pass once for export while it runs its first epoch."""
from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


class Trainer:
    def __init__(self, in_dim, out_dim, lr=0.05):
        self.device = dispatch.Autodiff(dispatch.NumPy())
        self.w = dispatch.rand((in_dim, out_dim), seed=13, device=self.device)
        self.lr = lr
        self.program = None

    def step(self, x, y):
        self.w = self.w.require_grad()
        loss = ((x @ self.w - y) ** 2).mean()
        self.w = self.w - self.lr * self.w.grad(loss.backward())
        return loss

    def warm_trace(self, rows):
        cap = dispatch.Capture()
        x = dispatch.placeholder((rows, self.w.shape[0]), device=cap, name="x")
        self.program = dispatch.export(x @ self.w.inner().to_device(cap))


def main():
    trainer = Trainer(4, 2)
    x = dispatch.rand((6, 4), seed=1, device=trainer.device)
    y = dispatch.rand((6, 2), seed=2, device=trainer.device)
    losses = []
    with guards.training():
        for epoch in range(3):
            if epoch == 0:
                trainer.warm_trace(rows=6)  # expect: DL001
            losses.append(trainer.step(x, y))
    return trainer.program, losses


if __name__ == "__main__":
    main()
