"""Export a trained model as a program."""
from dispatch_lint import runtime as dispatch


def export_model(model, cfg, batch=5):
    dev = dispatch.device(cfg.export_device)
    x = dispatch.placeholder((batch, cfg.shape[0]), device=dev, name="x")
    traced = model.for_export(dev)
    return dispatch.export(traced(x).relu())
