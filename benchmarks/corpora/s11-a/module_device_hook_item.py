"""A base module picks its device through an overridable hook; an export subclass returns a capture device."""
from dispatch_lint import runtime as dispatch


class Module:
    def __init__(self, fan_in, fan_out):
        self.device = self.make_device()
        self.weight = dispatch.rand((fan_in, fan_out), seed=0, device=self.device)
        self.weight = self.weight.require_grad()  # expect: DL001

    def make_device(self):
        return dispatch.Autodiff(dispatch.NumPy())

    def forward(self, x):
        return x @ self.weight


class ExportModule(Module):
    def __init__(self, fan_in, fan_out, name="export"):
        self.name = name
        super().__init__(fan_in, fan_out)

    def make_device(self):
        return dispatch.Capture()


def main():
    base = Module(4, 2)
    print("train forward", base.forward(dispatch.ones((1, 4))).shape)
    exported = ExportModule(4, 2)
    print(exported.name)


if __name__ == "__main__":
    main()
