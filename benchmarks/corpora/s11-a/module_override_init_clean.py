"""A base module with overridable device and weight hooks; the export subclass overrides both."""
from dispatch_lint import runtime as dispatch


class Module:
    def __init__(self, fan_in, fan_out):
        self.device = self.make_device()
        self.weight = self.init_weight(fan_in, fan_out)

    def make_device(self):
        return dispatch.Autodiff(dispatch.NumPy())

    def init_weight(self, fan_in, fan_out):
        return dispatch.rand((fan_in, fan_out), seed=0, device=self.device).require_grad()

    def forward(self, x):
        return (x @ self.weight).tanh()


class ExportModule(Module):
    def make_device(self):
        return dispatch.Capture()

    def init_weight(self, fan_in, fan_out):
        return dispatch.placeholder((fan_in, fan_out), device=self.device, name="weight")

    def forward(self, x):
        return super().forward(x) * 0.5


def main():
    train = Module(4, 2)
    loss = train.forward(dispatch.ones((3, 4))).sum()
    print("grad", train.weight.grad(loss.backward()).shape)
    exported = ExportModule(4, 2)
    x = dispatch.placeholder((3, 4), device=exported.device, name="x")
    program = dispatch.export(exported.forward(x))
    print(program.run({"x": dispatch.ones((3, 4)), "weight": train.weight.inner()}).tolist())


if __name__ == "__main__":
    main()
