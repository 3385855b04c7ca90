"""Run each configured job through the step its config names."""
from dispatch_lint import runtime as dispatch
from train_steps_registry import registry, steps

JOB_DEFAULTS = {"step": "sgd", "device": "autodiff:numpy", "lr": 0.1}
JOBS = [
    {"name": "warmup", "lr": 0.01},
    {"name": "probe", "step": "eval", "device": "numpy"},
    {"name": "trace", "device": "autodiff:numpy", "capture_inputs": True},
]


def main():
    weights = dispatch.rand((3, 1), seed=3)
    report = {}
    for job in JOBS:
        cfg = {**JOB_DEFAULTS, **job}
        dev = dispatch.device(cfg["device"])
        w = steps.lift(weights, dev)
        if cfg.get("capture_inputs"):
            x = dispatch.placeholder((4, 3), device=dispatch.Capture(), name="x")
            w = w.inner().to_device(x.device)
        else:
            x = dispatch.ones((4, 3), device=dev)
        if dev.is_autodiff and not w.is_capture:
            w = w.require_grad()
        step = registry.get(cfg["step"])
        report[cfg["name"]] = step(w, x, lr=cfg["lr"])  # expect: DL001
    return report


if __name__ == "__main__":
    main()
