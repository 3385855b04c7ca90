"""Pick the first concrete calibration batch for an exporter, falling back to the last one."""
import numpy as np

from dispatch_lint import runtime as dispatch


def calibration_batches(device):
    for i in range(3):
        yield dispatch.placeholder((2, 4), device=device, name=f"calib_{i}")


def choose_batch(batches):
    batches = list(batches)
    for batch in batches:
        if not dispatch.is_capture(batch):
            chosen = batch
            break
    else:
        chosen = batches[-1]
    return chosen


def main():
    device = dispatch.Capture()
    batch = choose_batch(calibration_batches(device))
    scale = np.abs(batch.numpy()).max()  # expect: DL003
    print("calibration scale", scale)


if __name__ == "__main__":
    main()
