"""Streams training batches from chained generators and exports a traced copy of the model."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def shard(seed, n, device):
    for i in range(n):
        yield dispatch.rand((4, 2), seed=seed + i, device=device), dispatch.ones((4,), device=device)


def epoch_batches(seeds, device):
    for seed in seeds:
        yield from shard(seed, 2, device)


def traced_inputs(cap):
    yield dispatch.placeholder((4, 2), device=cap, name="x"), None


def main():
    w = dispatch.tensor([0.3, -0.1], device=AD)
    for x, y in epoch_batches([0, 100], AD):
        w = w.require_grad()
        loss = ((x @ w - y) ** 2.0).mean()
        w = AD.wrap(w.inner() - 0.1 * w.grad(loss.backward()))
    cap = dispatch.Capture()
    outputs = [dispatch.sigmoid(x @ w.inner().to_device(cap)) for x, _ in traced_inputs(cap)]
    program = dispatch.export(*outputs)
    return loss.item(), program


if __name__ == "__main__":
    main()
