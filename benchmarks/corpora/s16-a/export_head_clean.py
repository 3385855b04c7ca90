"""Export a scoring head from a dataclass config and serve the replayed scores on Numba."""

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

    @property
    def device(self) -> dispatch.Device:
        return self.weight.device

    def on(self, device: dispatch.Device) -> "ScoringHead":
        return type(self)(self.weight.to_device(device), self.bias.to_device(device))

    def __call__(self, x: dispatch.Tensor) -> dispatch.Tensor:
        return (x @ self.weight + self.bias).sigmoid()


def to_serving(t: dispatch.Tensor, config: ExportConfig, inputs: dict) -> dispatch.Tensor:
    """Put a result where the serving process expects it, replaying a captured one first."""
    if t.is_capture:
        return dispatch.replay(t, inputs, device=config.serve_device)
    return t.to_device(config.serve_device)


def main() -> None:
    config = ExportConfig()
    head = ScoringHead.initialise(config.width, seed=3)
    data = dispatch.ones((config.batch, config.width))
    print("eager", to_serving(head(data), config, {}).tolist(), head.device)

    traced = head.on(config.capture_device)
    x = dispatch.placeholder(
        (config.batch, config.width), device=config.capture_device, name=config.input_name
    )
    scores = traced(x)
    program = dispatch.export(scores)
    staged = to_serving(scores, config, {config.input_name: data.numpy()})
    print("staged", staged.tolist(), staged.device)
    again = dispatch.Program.from_json(program.to_json()).run({config.input_name: data})
    print("round trip", again.tolist())


if __name__ == "__main__":
    main()
