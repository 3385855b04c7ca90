"""Train a tiny linear model, then freeze the trainer onto a capture device and export it."""
from dispatch_lint import runtime as dispatch


class LinearTrainer:
    def __init__(self, lr=0.05):
        self.lr = lr
        self.device = dispatch.Autodiff(dispatch.NumPy())
        self.weight = dispatch.tensor([0.1, 0.2], device=self.device)

    def train_step(self, x, y):
        w = self.weight.require_grad()
        pred = (w * dispatch.tensor(x, device=self.device)).sum()
        loss = (pred - y) ** 2
        grads = loss.backward()
        self.weight = dispatch.tensor((w.inner() - self.lr * w.grad(grads)).tolist(), device=self.device)
        return loss.inner()

    def freeze(self):
        self.device = dispatch.Capture()
        self.weight = self.weight.inner().to_device(self.device)

    def trace(self):
        x = dispatch.placeholder((2,), device=self.device, name="x")
        return dispatch.export((x * self.weight).sum())


def main():
    trainer = LinearTrainer()
    history = []
    for x, y in [([1.0, 0.0], 0.5), ([0.0, 1.0], -0.5), ([1.0, 1.0], 0.0)]:
        loss = trainer.train_step(x, y)
        if loss > 1.0:
            break
        history.append(round(loss.item(), 4))
    trainer.freeze()
    program = trainer.trace()
    served = program.run({"x": [2.0, 1.0]})
    print(history, served.item())
    return history


if __name__ == "__main__":
    main()
