"""Export a gradient-ready graph using a dataclass export config with a device factory."""
from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class ExportConfig:
    name: str = "policy"
    opset: int = 3
    # Keep gradients available in the exported graph for fine-tuning later.
    device: dispatch.Device = field(default_factory=lambda: dispatch.device("autodiff:capture"))  # expect: DL004
    outputs: list = field(default_factory=list)


def main():
    cfg = ExportConfig(opset=4)
    x = dispatch.placeholder((2, 2), device=cfg.device, name="obs")
    cfg.outputs.append((x * 2.0).tanh())
    program = dispatch.export(*cfg.outputs)
    print(cfg.name, program.run({"obs": dispatch.ones((2, 2))}))


if __name__ == "__main__":
    main()
