"""Build named placeholder inputs from a shape table and export a linear scorer over them."""
from dispatch_lint import runtime as dispatch

INPUT_SHAPES = {"features": (2, 3), "bias": (2, 1)}


class LinearExporter:
    def __init__(self, weights):
        self.weights = weights
        self.inputs = {}

    def make_inputs(self, shapes):
        self.inputs.update({name: dispatch.placeholder(shape, name=name) for name, shape in shapes.items()})
        return self.inputs

    def build(self):
        cap = self.inputs["features"].device
        w = self.weights.to_device(cap)
        return self.inputs["features"] @ w + self.inputs["bias"]


def main():
    exporter = LinearExporter(dispatch.tensor([[1.0], [0.0], [-1.0]]))
    inputs = exporter.make_inputs(INPUT_SHAPES)
    print(sorted(inputs.keys()))
    out = exporter.build()  # expect: DL008
    program = dispatch.export(out)
    print(program.run({"features": dispatch.ones((2, 3)), "bias": dispatch.zeros((2, 1))}))


if __name__ == "__main__":
    main()
