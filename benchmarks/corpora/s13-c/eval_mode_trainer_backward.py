"""Train a model that switches devices in train()/eval(), stepping it through a trainer."""
from dispatch_lint import runtime as dispatch


class TinyNet:
    def __init__(self, weight):
        self.weight = weight
        self.training = True

    @property
    def device(self):
        return dispatch.Autodiff(dispatch.NumPy()) if self.training else dispatch.NumPy()

    def train(self):
        self.training = True
        return self

    def eval(self):
        self.training = False
        return self

    def loss(self, x, y):
        if self.training:
            w = self.device.wrap(self.weight).require_grad()
        else:
            w = self.weight.to_device(self.device)
        return ((x @ w - y) ** 2).mean(), w


class Trainer:
    def __init__(self, model, lr=0.1, callbacks=()):
        self.model = model
        self.lr = lr
        self.callbacks = list(callbacks)

    def step(self, x, y):
        loss, w = self.model.loss(x, y)
        grads = loss.backward()
        self.model.weight = w.inner() - self.lr * w.grad(grads)
        for cb in self.callbacks:
            cb(self.model, loss)
        return loss


def main():
    model = TinyNet(dispatch.rand((2, 1), seed=4))
    seen = []
    trainer = Trainer(model, callbacks=[lambda m, loss: seen.append(repr(loss))])
    x, y = dispatch.ones((3, 2)), dispatch.zeros((3, 1))
    trainer.step(x, y)
    model.eval()
    trainer.step(x, y)  # expect: DL006
    return seen


if __name__ == "__main__":
    main()
