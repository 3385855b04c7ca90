"""Warm up a regression weight on the first few streamed batches before the main run."""
import itertools

from dispatch_lint import runtime as dispatch

AD = dispatch.device("autodiff:numpy")


def stream(seed, rows=4, width=3):
    for offset in itertools.count():
        x = dispatch.rand((rows, width), seed=seed + offset, device=AD)
        y = x.sum(axis=1) * 0.5
        yield x, y


def sgd_step(w, x, y, lr=0.05):
    loss = ((x @ w - y) ** 2).mean()
    grads = loss.backward()
    return w - lr * w.grad(grads), loss


def main():
    init = [0.0, 0.0, 0.0]
    w = dispatch.tensor(init)
    losses = []
    for step, (x, y) in enumerate(itertools.islice(stream(seed=100), 3)):
        w, loss = sgd_step(w, x, y)  # expect: DL006
        losses.append((step, loss.item()))
    best = min(losses, key=lambda pair: pair[1])
    print(", ".join(f"{s}:{l:.4f}" for s, l in losses), f"best step {best[0]}")
    return w


if __name__ == "__main__":
    main()
