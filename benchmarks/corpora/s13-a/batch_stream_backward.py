"""Stream training batches from generators, then a last export batch through the same loop."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def train_batches(n, size):
    for i in range(n):
        yield dispatch.rand((size, 2), seed=i, device=AD)


def export_batches(size):
    cap = dispatch.Capture()
    yield dispatch.placeholder((size, 2), device=cap, name="batch")


def all_batches(n, size, with_export):
    yield from train_batches(n, size)
    if with_export:
        yield from export_batches(size)


def main():
    w = dispatch.ones((2, 1), device=AD).require_grad()
    losses = []
    for batch in all_batches(3, 4, with_export=True):
        loss = (batch @ w.inner().to_device(batch.device) if batch.is_capture else batch @ w).mean()
        grads = loss.backward()  # expect: DL001
        losses.append(grads)
    return len(losses)


if __name__ == "__main__":
    main()
