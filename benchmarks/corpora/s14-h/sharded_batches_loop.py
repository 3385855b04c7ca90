"""Train a linear probe from batches streamed shard by shard through generators."""
import numpy as np

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def shard(seed, n, device):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        x = rng.random((8, 4)).astype(np.float32)
        yield dispatch.from_numpy(x, device=device), dispatch.from_numpy(x.sum(1, keepdims=True), device=device)


def stream(shards):
    for spec in shards:
        yield from shard(*spec)


def main():
    shards = [(0, 2, AD), (1, 2, AD), (2, 1, dispatch.Numba())]
    w = AD.wrap(dispatch.zeros((4, 1))).require_grad()
    losses = []
    for step, (x, y) in enumerate(stream(shards)):
        pred = x @ w  # expect: DL008
        loss = ((pred - y) ** 2).mean()
        grads = loss.backward()
        w = AD.wrap(w.inner() - 0.1 * w.grad(grads)).require_grad()
        losses.append((step, loss.inner().item()))
    return losses


if __name__ == "__main__":
    main()
