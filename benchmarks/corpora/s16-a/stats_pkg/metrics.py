"""Running means kept as tensors, on a real device or recorded into a capture graph."""

from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class RunningMean:
    device: dispatch.Device = field(default_factory=dispatch.NumPy)
    total: dispatch.Tensor | None = None
    count: int = 0

    def __post_init__(self) -> None:
        if self.total is None:
            self.total = dispatch.zeros((), device=self.device)

    def update(self, batch_loss: dispatch.Tensor) -> "RunningMean":
        self.total = self.total + batch_loss.mean()
        self.count += 1
        return self

    @property
    def value(self) -> dispatch.Tensor:
        return self.total / max(self.count, 1)


class TracedMean(RunningMean):
    """The same metric, recorded on a capture device so it can be exported with the model."""

    def __init__(self, capture: dispatch.Device | None = None) -> None:
        super().__init__(device=capture if capture is not None else dispatch.Capture())

    def update(self, batch_loss: dispatch.Tensor) -> "RunningMean":
        return super().update(batch_loss.to_device(self.device))
