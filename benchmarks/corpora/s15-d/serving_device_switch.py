"""Warm up a denoiser on the host, then switch the module's target device and trace it for serving."""
from dispatch_lint import runtime as dispatch

TARGET = dispatch.NumPy()
KERNEL = dispatch.tensor([0.25, 0.5, 0.25])


def enter_serving_mode():
    global TARGET
    TARGET = dispatch.Capture()
    return TARGET


def smooth(signal):
    padded = dispatch.tensor([0.0] + signal.tolist() + [0.0], device=signal.device)
    return padded.reshape((1, -1)).T.reshape((-1,)), signal * KERNEL.sum()


def main():
    noisy = dispatch.tensor([1.0, 3.0, 2.0], device=TARGET)
    warm = noisy * KERNEL
    if warm.sum() > 1.0:
        print("warm-up energy", f"{warm.sum().item():.3f}")
    _, smoothed = smooth(noisy)
    enter_serving_mode()
    frame = dispatch.placeholder((3,), device=TARGET, name="frame")
    gain = dispatch.tensor([1.0, 1.0, 1.0], device=TARGET)
    served = (frame * gain).relu()
    denoised = served * KERNEL  # expect: DL008
    program = dispatch.export(denoised)
    return program.run({"frame": [0.5, -1.0, 2.0]}), smoothed


if __name__ == "__main__":
    main()
