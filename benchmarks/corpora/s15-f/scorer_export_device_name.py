"""Export an anomaly scorer onto a trace device chosen by name from the deployment settings."""
import numpy as np

from dispatch_lint import runtime as dispatch

SETTINGS = {"train_device": "autodiff:numpy", "runtime_device": "numba"}


def export_scorer(center, device_name):
    trace_dev = dispatch.device(device_name)
    x = dispatch.placeholder((4, 3), device=trace_dev, name="x")
    dist = ((x - center.to_device(trace_dev)) ** 2).sum(axis=1).sqrt()
    return dispatch.export(dist)


def main():
    center = dispatch.tensor([0.2, -0.1, 0.4])
    trace_name = SETTINGS.get("trace_device", "autodiff:capture")
    program = export_scorer(center, trace_name)  # expect: DL004
    batch = np.zeros((4, 3), dtype=np.float32)
    scores = program.run({"x": batch}, device=SETTINGS["runtime_device"])
    return scores.tolist()


if __name__ == "__main__":
    main()
