"""Export a scoring head whose capture device comes from a dataclass default factory."""

from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class ExportConfig:
    width: int = 4
    batch: int = 2
    input_name: str = "features"
    capture_device: dispatch.Device = field(default_factory=dispatch.Capture)
    serve_device: str = "numba"


@dataclass
class ScoringHead:
    weight: dispatch.Tensor
    bias: dispatch.Tensor

    @classmethod
    def initialise(cls, width: int, seed: int = 0) -> "ScoringHead":
        return cls(weight=dispatch.rand((width, 1), seed=seed), bias=dispatch.zeros((1,)))

    def on(self, device: dispatch.Device) -> "ScoringHead":
        return type(self)(self.weight.to_device(device), self.bias.to_device(device))

    def __call__(self, x: dispatch.Tensor) -> dispatch.Tensor:
        return (x @ self.weight + self.bias).sigmoid()


def to_serving(t: dispatch.Tensor, config: ExportConfig) -> dispatch.Tensor:
    """Put a result where the serving process expects its tensors."""
    return t.to_device(config.serve_device)


def trace(config: ExportConfig, head: ScoringHead) -> dispatch.Tensor:
    traced_head = head.on(config.capture_device)
    x = dispatch.placeholder(
        (config.batch, config.width), device=config.capture_device, name=config.input_name
    )
    return traced_head(x)


def main() -> None:
    config = ExportConfig()
    head = ScoringHead.initialise(config.width, seed=3)
    eager = head(dispatch.ones((config.batch, config.width)))
    print("eager scores", to_serving(eager, config).tolist())

    scores = trace(config, head)
    program = dispatch.export(scores)
    print("exported", program)
    staged = to_serving(scores, config)  # expect: DL002
    print("staged", staged)


if __name__ == "__main__":
    main()
