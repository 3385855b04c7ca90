"""Accumulate micro-batch losses and run the backward pass in a finally block."""
import numpy as np

from dispatch_lint import runtime as dispatch


def micro_batches(data, size):
    for start in range(0, len(data), size):
        yield data[start:start + size]


def accumulate(w, batches, device):
    total = None
    seen = 0
    try:
        for chunk in batches:
            x = dispatch.tensor(chunk, device=device)
            loss = ((x @ w) ** 2).mean()
            total = loss if total is None else total + loss
            seen += 1
    finally:
        if total is not None:
            grads = (total / seen).backward()
            print("accumulated", seen, "micro-batches,", len(grads), "gradients")
    return total


def main():
    data = np.random.default_rng(0).normal(size=(6, 3)).astype(np.float32)
    export_device = dispatch.Capture()
    w = dispatch.tensor(np.ones((3, 1), dtype=np.float32), device=export_device)
    accumulate(w, micro_batches(data, 2), export_device)  # expect: DL001


if __name__ == "__main__":
    main()
