"""Fit a linear model with on_step / on_epoch_end hooks that log the loss and an exported probe."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


class Trainer:
    def __init__(self, lr=0.1):
        self.lr = lr
        self.on_step = []
        self.on_epoch_end = []

    def fit(self, w, x, y, epochs=2):
        for epoch in range(epochs):
            loss = ((x @ w - y) ** 2).mean()
            grads = loss.backward()
            w = (w - self.lr * w.grad(grads)).require_grad()
            for hook in self.on_step:
                hook(epoch, loss)
            for hook in self.on_epoch_end:
                hook(epoch, w)
        return w


def main():
    x = dispatch.rand((16, 3), seed=1)
    y = dispatch.rand((16, 1), seed=2)
    w = dispatch.rand((3, 1), seed=0, device=AD).require_grad()
    history = []

    cap = dispatch.Capture()
    probe_in = dispatch.placeholder((1, 3), device=cap, name="probe")

    def log_probe(epoch, weights):
        out = (probe_in @ weights.inner().to_device(cap)).sum()
        history.append((epoch, "probe", out.item()))

    trainer = Trainer(lr=0.05)
    trainer.on_step.append(lambda step, loss: history.append((step, "loss", loss.item())))
    trainer.on_epoch_end.append(log_probe)
    w = trainer.fit(w, x, y)  # expect: DL003
    print(history[-1], w.shape)


if __name__ == "__main__":
    main()
