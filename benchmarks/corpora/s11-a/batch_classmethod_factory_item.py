"""Build batches through classmethod factories and run a training step on one of them."""
from dispatch_lint import runtime as dispatch

AUTODIFF = dispatch.Autodiff(dispatch.NumPy())


class Batch:
    def __init__(self, features, targets):
        self.features = features
        self.targets = targets

    @classmethod
    def random(cls, n, dim, seed=0):
        return cls(dispatch.rand((n, dim), seed=seed), dispatch.rand((n, 1), seed=seed + 1))

    @classmethod
    def for_export(cls, n, dim):
        cap = dispatch.Capture()
        features = dispatch.placeholder((n, dim), device=cap, name="features")
        targets = dispatch.placeholder((n, 1), device=cap, name="targets")
        return cls(features, targets)


def train_step(weights, batch):
    pred = batch.features @ weights
    loss = ((pred - batch.targets) ** 2).mean()
    grads = loss.backward()
    return weights.grad(grads)


def main():
    weights = dispatch.rand((4, 1), seed=7, device=AUTODIFF).require_grad()
    warmup = Batch.random(16, 4)
    print("warmup grad", train_step(weights, warmup).sum().item())
    export_batch = Batch.for_export(16, 4)
    grad = train_step(weights, export_batch)  # expect: DL008
    print(grad)


if __name__ == "__main__":
    main()
