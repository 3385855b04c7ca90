"""Run configuration with device strings for training and export."""
from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class RunConfig:
    train_device: str = "autodiff:numpy"
    export_device: str = "capture"
    epochs: int = 3
    shape: tuple = field(default_factory=lambda: (4, 2))

    @property
    def device(self):
        return dispatch.device(self.train_device)
