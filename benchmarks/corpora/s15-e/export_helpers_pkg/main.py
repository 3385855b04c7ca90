"""Trace a scoring head on the configured device and print its value on a sample batch."""
from dispatch_lint import runtime as dispatch

from export_helpers_pkg import config, helpers


def build(cfg, w):
    dev = cfg.device
    if dev.is_capture:
        x = dispatch.placeholder((cfg.rows, 3), device=dev, name="batch")
    else:
        x = dispatch.full((cfg.rows, 3), 0.5, device=dev)
    return (x @ w.to_device(dev)).relu().mean()


def main():
    cfg = config.load(rows=3)
    w = dispatch.tensor([[1.0], [-0.5], [0.25]])
    out = build(cfg, w)
    program = None
    if helpers.is_traced(out):
        program = dispatch.export(out)
        out = program.run({"batch": [[0.5, 0.5, 0.5]] * cfg.rows})
    return {"score": helpers.render(out), "program": program and program.to_json()}


if __name__ == "__main__":
    main()
