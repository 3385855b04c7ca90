"""Serving configuration: where the graph is recorded and where requests run."""

from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class ServingConfig:
    features: int = 3
    batch: int = 4
    input_name: str = "items"
    run_device: str = "numba"
    capture: dispatch.Device = field(default_factory=dispatch.Capture)
    thresholds: dict[str, float] = field(default_factory=lambda: {"keep": 0.75})
