"""A context manager that records a model on a capture device and exports it on exit."""

from dispatch_lint import runtime as dispatch
from serving_clean.config import ServingConfig


class ExportSession:
    def __init__(self, config: ServingConfig) -> None:
        self.config = config
        self.program: dispatch.Program | None = None
        self._outputs: list[dispatch.Tensor] = []

    def __enter__(self) -> "ExportSession":
        return self

    def input(self) -> dispatch.Tensor:
        shape = (self.config.batch, self.config.features)
        return dispatch.placeholder(shape, device=self.config.capture, name=self.config.input_name)

    def lift(self, weight: dispatch.Tensor) -> dispatch.Tensor:
        return weight.to_device(self.config.capture)

    def output(self, t: dispatch.Tensor) -> None:
        self._outputs.append(t)

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None:
            self.program = dispatch.export(*self._outputs)
        return False
