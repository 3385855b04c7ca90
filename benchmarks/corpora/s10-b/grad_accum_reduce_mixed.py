"""Accumulates per-shard gradients with functools.reduce before an SGD update."""
import functools

from dispatch_lint import runtime as dispatch

SHARD_DEVICES = [dispatch.NumPy(), dispatch.NumPy(), dispatch.Numba()]


def shard_grad(w, seed, device):
    ad = dispatch.Autodiff(device)
    wd = ad.wrap(w.to_device(device)).require_grad()
    x = dispatch.rand((16, 3), seed=seed, device=ad)
    loss = ((x @ wd) ** 2.0).mean()
    return wd.grad(loss.backward())


def add_grads(total, g):
    return total + g


def main():
    w = dispatch.tensor([[0.1], [0.2], [-0.3]])
    lr = 0.05
    for epoch in range(2):
        grads = [shard_grad(w, 10 * epoch + i, dev) for i, dev in enumerate(SHARD_DEVICES)]
        total = functools.reduce(add_grads, grads)  # expect: DL008
        w = w - lr * total / len(grads)
    return w.numpy()


if __name__ == "__main__":
    main()
