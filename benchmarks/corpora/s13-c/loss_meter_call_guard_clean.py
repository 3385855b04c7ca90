"""Average losses with a callable meter that a trainer calls for eager and traced steps."""
from dispatch_lint import runtime as dispatch


def is_traced(t):
    return t.is_capture


class LossMeter:
    def __init__(self, fmt=".3f"):
        self.fmt = fmt
        self.values = []
        self.skipped = 0

    def __call__(self, loss):
        if is_traced(loss):
            self.skipped += 1
            return None
        self.values.append(float(loss))
        return format(loss, self.fmt)

    @property
    def mean(self):
        return sum(self.values) / max(len(self.values), 1)


class Trainer:
    def __init__(self, weight, on_loss):
        self.weight = weight
        self.on_loss = on_loss

    def loss(self, x, y):
        return ((x @ self.weight.to_device(x.device) - y) ** 2).mean()

    def evaluate(self, batches):
        return [self.on_loss(self.loss(x, y)) for x, y in batches]


def main():
    meter = LossMeter()
    trainer = Trainer(dispatch.tensor([[0.2], [0.4]]), on_loss=meter)
    cap = dispatch.Capture()
    batches = [
        (dispatch.ones((3, 2)), dispatch.zeros((3, 1))),
        (dispatch.placeholder((3, 2), device=cap, name="x"), dispatch.placeholder((3, 1), device=cap, name="y")),
        (dispatch.rand((3, 2), seed=1), dispatch.ones((3, 1))),
    ]
    shown = trainer.evaluate(batches)
    return shown, meter.mean, meter.skipped


if __name__ == "__main__":
    main()
