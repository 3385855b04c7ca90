"""Capture the forward pass with the weights as constants and export it."""

from dataclasses import dataclass

from dispatch_lint import runtime as dispatch

from export_serve.model import forward


@dataclass(frozen=True)
class ExportSpec:
    batch: int = 4
    features: int = 3
    input_name: str = "features"


def export_model(params: dict, spec: ExportSpec) -> str:
    capture = dispatch.Capture()
    x = dispatch.placeholder((spec.batch, spec.features), device=capture, name=spec.input_name)
    constants = {name: p.to_device(capture) for name, p in params.items()}
    program = dispatch.export(forward(constants, x))
    return program.to_json()
