"""Report a classifier head's outputs, with an export subclass that only describes the graph."""
from dispatch_lint import runtime as dispatch


class Head:
    def __init__(self, device, width=4):
        self.device = device
        self.weight = dispatch.rand((width, 2), seed=4).to_device(device)

    def inputs(self):
        return dispatch.ones((3, self.weight.shape[0]), device=self.device)

    def forward(self, x):
        return (x @ self.weight).sigmoid()

    def describe(self, out):
        return f"{type(self).__name__}: mean={float(out.mean()):.3f}"


class ExportHead(Head):
    def __init__(self, width=4):
        super().__init__(dispatch.Capture(), width)

    def inputs(self):
        return dispatch.placeholder((3, self.weight.shape[0]), device=self.device, name="x")

    def forward(self, x):
        return super().forward(x) * 2.0 - 1.0

    def describe(self, out):
        return f"{type(self).__name__}: graph {out!r}"


def main():
    reports = []
    for head in (Head(dispatch.NumPy()), ExportHead()):
        out = head.forward(head.inputs())
        reports.append(head.describe(out))
    print("\n".join(reports))
    return reports


if __name__ == "__main__":
    main()
