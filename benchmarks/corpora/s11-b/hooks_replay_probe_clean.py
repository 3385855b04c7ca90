"""Fit a linear model with epoch-end hooks that replay an exported probe before logging it."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


class Trainer:
    def __init__(self, lr=0.1):
        self.lr = lr
        self.on_epoch_end = []

    def fit(self, w, x, y, epochs=2):
        for epoch in range(epochs):
            loss = ((x @ w - y) ** 2).mean()
            w = (w - self.lr * w.grad(loss.backward())).require_grad()
            for hook in self.on_epoch_end:
                hook(epoch, w)
        return w


def main():
    x = dispatch.rand((16, 3), seed=1)
    y = dispatch.rand((16, 1), seed=2)
    w = dispatch.rand((3, 1), seed=0, device=AD).require_grad()
    probe_data = dispatch.rand((1, 3), seed=9)
    history = []

    cap = dispatch.Capture()
    probe_in = dispatch.placeholder((1, 3), device=cap, name="probe")

    def log_probe(epoch, weights):
        out = (probe_in @ weights.inner().to_device(cap)).sum()
        if dispatch.is_capture(out):
            out = dispatch.replay(out, {"probe": probe_data})
        history.append((epoch, out.item()))

    trainer = Trainer(lr=0.05)
    trainer.on_epoch_end.append(log_probe)
    trainer.on_epoch_end.append(lambda epoch, weights: history.append((epoch, str(weights))))
    w = trainer.fit(w, x, y)
    print(history[0], w.shape)


if __name__ == "__main__":
    main()
