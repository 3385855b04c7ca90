"""Train a bias-only model, then save it to the checkpoint device given in the run options."""
import argparse

from dispatch_lint import runtime as dispatch

BASE = argparse.Namespace(train_device="autodiff:numpy", save_device="numpy", steps=3, lr=0.5)


def with_overrides(base, **changes):
    opts = argparse.Namespace(**vars(base))
    for key, value in changes.items():
        setattr(opts, key, value)
    return opts


def train(opts):
    dev = dispatch.device(opts.train_device)
    target = dispatch.tensor([1.0, -2.0, 0.5], device=dev)
    b = dispatch.zeros((3,), device=dev)
    for _ in range(opts.steps):
        b = b.require_grad()
        grads = ((b - target) ** 2).sum().backward()
        b = dev.wrap(b.inner() - opts.lr * b.grad(grads))
    return b


def save(b, opts):
    host = b.to_device(opts.save_device)
    return {"bias": host.tolist()}


def main():
    opts = with_overrides(BASE, steps=2, save_device="numba")
    bias = train(opts)
    return save(bias, opts)  # expect: DL007


if __name__ == "__main__":
    main()
