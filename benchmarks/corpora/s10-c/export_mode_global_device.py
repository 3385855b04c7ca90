"""Switch a module-wide default device to capture mode before exporting a scoring function."""
import numpy as np

from dispatch_lint import runtime as dispatch

DEVICE = dispatch.NumPy()
WEIGHTS = np.array([0.5, -1.0, 2.0], dtype=np.float32)


def enter_export_mode():
    global DEVICE
    DEVICE = dispatch.Capture()


def score(features):
    w = dispatch.tensor(WEIGHTS, device=DEVICE)
    x = dispatch.tensor(features, device=DEVICE)
    return (x * w).sum().sigmoid()


def main():
    features = np.array([1.0, 0.5, 0.25], dtype=np.float32)
    eager = score(features)
    print(f"eager score {eager.item():.4f}")
    enter_export_mode()
    traced = score(features)
    print(f"traced score {traced.item():.4f}")  # expect: DL003
    print(dispatch.export(traced))


if __name__ == "__main__":
    main()
