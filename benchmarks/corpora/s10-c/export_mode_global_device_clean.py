"""Compute eager metrics, then switch the module device to capture only for the export step."""
import numpy as np

from dispatch_lint import runtime as dispatch

DEVICE = dispatch.NumPy()


def use_capture(enabled):
    global DEVICE
    if enabled:
        DEVICE = dispatch.Capture()
    return DEVICE


def predict(x, w):
    return dispatch.tensor(x, device=DEVICE) @ dispatch.tensor(w, device=DEVICE)


def main(export=False):
    x = np.ones((2, 3), dtype=np.float32)
    w = np.full((3, 1), 0.5, dtype=np.float32)
    eager = predict(x, w)
    use_capture(export)
    again = predict(x, w)
    print(f"eager {eager.sum().item():.2f} again {again.mean().item():.2f}")
    use_capture(True)
    traced = predict(x, w)
    print("eager after switch", eager.max().item())
    program = dispatch.export(traced)
    print(program.run({}))


if __name__ == "__main__":
    main()
