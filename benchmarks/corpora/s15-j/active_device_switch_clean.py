"""Evaluate on the host first, then switch the module's active device to capture for export."""
from dispatch_lint import runtime as dispatch

ACTIVE = dispatch.NumPy()
WEIGHTS = dispatch.tensor([[0.2, -0.1], [0.4, 0.3], [-0.5, 0.1]])


def start_export():
    global ACTIVE
    ACTIVE = dispatch.Capture()
    return ACTIVE


def forward(x):
    return (x @ WEIGHTS.to_device(ACTIVE)).relu()


def main():
    x = dispatch.rand((4, 3), seed=7, device=ACTIVE)
    host_out = forward(x)
    summary = {"host_mean": f"{host_out.mean():.4f}", "host_max": host_out.max().item()}
    start_export()
    traced_in = dispatch.placeholder((4, 3), device=ACTIVE, name="x")
    traced_out = forward(traced_in)
    summary["traced"] = repr(traced_out)
    program = dispatch.export(traced_out)
    replayed = program.run({"x": x})
    summary["replay_matches"] = bool((replayed - host_out).abs().max() < 1e-6)
    return summary


if __name__ == "__main__":
    main()
