"""Create a trainable embedding table on the autodiff device described by a device spec."""
from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class DeviceSpec:
    base: dispatch.Device = field(default_factory=lambda: dispatch.Autodiff(dispatch.NumPy()))
    dtype: str = "float32"

    @classmethod
    def from_name(cls, name):
        return cls(base=dispatch.device(name))

    def autodiff(self):
        return dispatch.Autodiff(self.base)


def embedding(rows, dim, spec):
    table = dispatch.rand((rows, dim), seed=0, dtype=spec.dtype)
    return spec.autodiff().wrap(table).require_grad()


def main():
    spec = DeviceSpec.from_name("numpy")
    table = embedding(5, 2, spec)
    print(table.shape)
    default_spec = DeviceSpec()
    device = default_spec.autodiff()  # expect: DL005
    print(dispatch.ones((2,), device=device))


if __name__ == "__main__":
    main()
