"""Switch a module-level data device to capture for export, then build a batch for metrics."""
from dispatch_lint import runtime as dispatch

DATA_DEVICE = dispatch.NumPy()
BATCH_SHAPE = (4, 3)


def use_export_device():
    global DATA_DEVICE
    DATA_DEVICE = dispatch.Capture()
    return DATA_DEVICE


def make_batch(seed=0):
    return dispatch.rand(BATCH_SHAPE, seed=seed, device=DATA_DEVICE)


def summarize(batch):
    return {"mean": batch.mean().item(), "max": batch.max().item()}


def main():
    print("train batch", summarize(make_batch(1)))
    dev = use_export_device()
    x = dispatch.placeholder(BATCH_SHAPE, device=dev, name="x")
    program = dispatch.export((x + make_batch(2)).relu())
    print(program.to_json()[:40])
    batch = make_batch(3)
    print("export batch mean", batch.mean().numpy())  # expect: DL003


if __name__ == "__main__":
    main()
