"""Export a loss graph for an on-device optimiser, its devices built by dataclass factories."""

from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class ExportSpec:
    features: int = 4
    batch: int = 8
    input_names: tuple[str, str] = ("x", "y")
    eager_device: dispatch.Device = field(
        default_factory=lambda: dispatch.Autodiff(dispatch.NumPy())
    )
    graph_device: dispatch.Device = field(
        default_factory=lambda: dispatch.Autodiff(dispatch.Capture())  # expect: DL004
    )

    @classmethod
    def small(cls) -> "ExportSpec":
        return cls(features=2, batch=4)


class LossGraph:
    def __init__(self, spec: ExportSpec) -> None:
        self.spec = spec
        self.weight = dispatch.rand((spec.features, 1), seed=5)

    def inputs(self, device: dispatch.Device) -> list[dispatch.Tensor]:
        shapes = [(self.spec.batch, self.spec.features), (self.spec.batch, 1)]
        return [dispatch.placeholder(s, device=device, name=n)
                for s, n in zip(shapes, self.spec.input_names)]

    def loss(self, x: dispatch.Tensor, y: dispatch.Tensor) -> dispatch.Tensor:
        if x.is_capture:
            w = self.weight.to_device(x.device)
        else:
            w = dispatch.Autodiff(dispatch.NumPy()).wrap(self.weight)
        return ((x @ w - y) ** 2).mean()


def main() -> None:
    spec = ExportSpec.small()
    graph = LossGraph(spec)
    x = dispatch.rand((spec.batch, spec.features), seed=1, device=spec.eager_device)
    y = dispatch.zeros((spec.batch, 1), device=spec.eager_device)
    print("eager loss", graph.loss(x, y).item())
    program = dispatch.export(graph.loss(*graph.inputs(spec.graph_device)))
    print(program.to_json()[:60])


if __name__ == "__main__":
    main()
