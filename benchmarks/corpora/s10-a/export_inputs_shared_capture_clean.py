"""Build named placeholder inputs on one capture device from a shape table and replay the scorer."""
from dispatch_lint import runtime as dispatch

INPUT_SHAPES = {"features": (2, 3), "bias": (2, 1)}


class LinearExporter:
    def __init__(self, weights):
        self.weights = weights
        self.capture = dispatch.Capture()
        self.inputs = {}

    def make_inputs(self, shapes):
        for name, shape in shapes.items():
            self.inputs[name] = dispatch.placeholder(shape, device=self.capture, name=name)
        return self.inputs

    def build(self):
        w = self.weights.to_device(self.capture)
        features, bias = (self.inputs[k] for k in INPUT_SHAPES)
        return features @ w + bias


def main():
    exporter = LinearExporter(dispatch.tensor([[1.0], [0.0], [-1.0]]))
    inputs = exporter.make_inputs(INPUT_SHAPES)
    out = exporter.build()
    feeds = {name: dispatch.ones(t.shape) for name, t in inputs.items()}
    result = dispatch.replay(out, feeds)
    print(sorted(feeds), [row for row in result.tolist()], all(dispatch.is_capture(t) for t in inputs.values()))


if __name__ == "__main__":
    main()
