"""Builds the device for each pipeline stage from a table of factory functions."""
from dispatch_lint import runtime as dispatch

STAGE_DEVICES = {
    "train": lambda: dispatch.Autodiff(dispatch.NumPy()),
    "serve": lambda: dispatch.Numba(),
    "export": lambda: dispatch.device("capture"),
    "export_finetune": lambda: dispatch.device("autodiff:capture"),  # expect: DL004
}


def stage_device(stage):
    factory = STAGE_DEVICES[stage]
    return factory()


def run_stage(stage, w):
    device = stage_device(stage)
    if stage.startswith("export"):
        x = dispatch.placeholder((2, 3), device=device, name="x")
        return dispatch.export(x @ w.to_device(device))
    x = dispatch.rand((2, 3), seed=0, device=device)
    return (x @ w.to_device(device)).sum().item()


def main():
    w = dispatch.rand((3, 1), seed=1)
    results = {}
    for stage in ("serve", "export", "export_finetune"):
        results[stage] = run_stage(stage, w)
    return results


if __name__ == "__main__":
    main()
