"""Build training and export batches with classmethod factories; train on one, export the other."""
from dispatch_lint import runtime as dispatch

AUTODIFF = dispatch.Autodiff(dispatch.NumPy())


class Batch:
    def __init__(self, features, targets=None):
        self.features = features
        self.targets = targets

    @classmethod
    def random(cls, n, dim, seed=0):
        return cls(dispatch.rand((n, dim), seed=seed), dispatch.rand((n, 1), seed=seed + 1))

    @classmethod
    def for_export(cls, n, dim, device=None):
        cap = device if device is not None else dispatch.Capture()
        return cls(dispatch.placeholder((n, dim), device=cap, name="features"))

    @property
    def exportable(self):
        return self.features.is_capture


def train_step(weights, batch):
    pred = batch.features @ weights
    loss = ((pred - batch.targets) ** 2).mean()
    return loss, weights.grad(loss.backward())


def main():
    weights = dispatch.rand((4, 1), seed=7, device=AUTODIFF).require_grad()
    batches = [Batch.random(16, 4, seed=s) for s in range(3)] + [Batch.for_export(16, 4)]
    for batch in batches:
        if batch.exportable:
            cap = batch.features.device
            out = batch.features @ weights.inner().to_device(cap)
            program = dispatch.export(out)
            continue
        loss, grad = train_step(weights, batch)
        weights = (weights - 0.1 * grad).require_grad()
        print(f"loss {float(loss):.4f}")
    print(program.run({"features": dispatch.ones((16, 4))}).shape)


if __name__ == "__main__":
    main()
