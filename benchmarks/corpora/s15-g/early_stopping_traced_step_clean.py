"""Early stopping on validation loss, with the same step function reused to trace the model."""
from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards

AD = dispatch.Autodiff(dispatch.NumPy())


class EarlyStopping:
    def __init__(self, patience=2, min_delta=1e-4):
        self.patience, self.min_delta = patience, min_delta
        self.best, self.bad_epochs, self.stop = float("inf"), 0, False

    def __call__(self, loss):
        value = loss.item()
        if value < self.best - self.min_delta:
            self.best, self.bad_epochs = value, 0
        else:
            self.bad_epochs += 1
        self.stop = self.bad_epochs >= self.patience


def traced(t):
    return guards.is_capture(t)


class Runner:
    def __init__(self, weight, hooks):
        self.weight, self.hooks = weight, hooks

    def val_step(self, x, y):
        loss = ((x @ self.weight.to_device(x.device) - y) ** 2).mean()
        if not traced(loss):
            for hook in self.hooks:
                hook(loss)
        return loss

    def train_step(self, x, y, lr=0.3):
        w = AD.wrap(self.weight).require_grad()
        loss = ((AD.wrap(x) @ w - y) ** 2).mean()
        self.weight = self.weight - lr * w.grad(loss.backward())


def main():
    stopper = EarlyStopping()
    runner = Runner(dispatch.zeros((3, 1)), hooks=[stopper])
    x, y = dispatch.rand((12, 3), seed=8), dispatch.rand((12, 1), seed=9)
    for epoch in range(20):
        runner.train_step(x, y)
        runner.val_step(x, y)
        if stopper.stop:
            break
    cap = dispatch.Capture()
    loss = runner.val_step(dispatch.placeholder((12, 3), device=cap, name="x"),
                           dispatch.placeholder((12, 1), device=cap, name="y"))
    print(epoch, round(stopper.best, 5), dispatch.export(loss).run({"x": x, "y": y}))
    return stopper.best


if __name__ == "__main__":
    main()
