"""Fit a small MLP for a few steps, then trace it for export and keep fitting the traced copy."""
import dataclasses

from dispatch_lint import runtime as dispatch

from mlp_fit_pkg_item.models import MLP, ModelConfig
from mlp_fit_pkg_item.training import fit_step


def main():
    cfg = ModelConfig.small()
    model = MLP.from_config(cfg)
    x, y = dispatch.rand((6, 4), seed=10), dispatch.rand((6, 1), seed=11)
    for _ in range(3):
        loss = fit_step(model, x, y)
    print("train loss", loss.item())
    export_model = MLP.from_config(dataclasses.replace(cfg, device="capture"))
    xs = dispatch.placeholder((6, 4), device=export_model.device, name="x")
    ys = dispatch.placeholder((6, 1), device=export_model.device, name="y")
    fit_step(export_model, xs, ys)  # expect: DL001


if __name__ == "__main__":
    main()
