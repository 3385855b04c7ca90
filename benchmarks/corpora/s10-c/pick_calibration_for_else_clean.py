"""Pick the first concrete calibration batch for an exporter, refusing when there is none."""
import numpy as np

from dispatch_lint import runtime as dispatch


def calibration_batches(device):
    yield dispatch.placeholder((2, 4), device=device, name="calib_sym")
    yield dispatch.tensor(np.linspace(-2.0, 2.0, 8).reshape(2, 4))
    yield dispatch.placeholder((2, 4), device=device, name="calib_tail")


def choose_batch(batches):
    for batch in batches:
        if batch.is_capture:
            continue
        chosen = batch
        break
    else:
        raise LookupError("no concrete calibration batch")
    return chosen


def main():
    device = dispatch.Capture()
    batch = choose_batch(calibration_batches(device))
    scale = np.abs(batch.numpy()).max()
    print(f"calibration scale {scale:.3f}")


if __name__ == "__main__":
    main()
