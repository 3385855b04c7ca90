"""An export-state dataclass whose device comes from a default_factory and which registers named inputs."""
from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class ExportState:
    name: str
    device: dispatch.Device = field(default_factory=dispatch.Capture)
    inputs: dict = field(default_factory=dict)
    outputs: list = field(default_factory=list)

    def add_input(self, key, shape):
        t = dispatch.placeholder(shape, device=self.device, name=key)
        self.inputs[key] = t
        return t

    def finish(self):
        return dispatch.export(*self.outputs)


def main():
    state = ExportState("encoder")
    tokens = state.add_input("tokens", (2, 8))
    w = dispatch.rand((8, 4), seed=0).to_device(state.device)
    state.outputs.append((tokens @ w).tanh())
    program = state.finish()
    print(state.name, list(program.inputs))
    preview = tokens.to_device(dispatch.NumPy())  # expect: DL002
    print(preview)


if __name__ == "__main__":
    main()
