"""Build training and export pipelines from classmethod factories and run both."""
from dispatch_lint import runtime as dispatch


class Pipeline:
    def __init__(self, device, name):
        self.device = device
        self.name = name

    @classmethod
    def for_training(cls):
        return cls(dispatch.Autodiff(dispatch.NumPy()), "train")

    @classmethod
    def for_export(cls):
        return cls(dispatch.Capture(), "export")

    @property
    def traced(self):
        return self.device.is_capture

    def inputs(self, shape):
        if self.traced:
            return dispatch.placeholder(shape, device=self.device, name="batch")
        return dispatch.rand(shape, seed=2, device=self.device)

    def place(self, weight):
        if self.traced:
            return weight.to_device(self.device)
        return self.device.wrap(weight).require_grad()

    def run(self, weight):
        x = self.inputs((4, 2))
        out = (x @ self.place(weight)).sigmoid().mean()
        if self.traced:
            out = dispatch.replay(out, {"batch": dispatch.ones((4, 2)).numpy()})
        else:
            grads = out.backward()
            print(self.name, "tracked gradients:", type(grads).__name__)
        return out


def main():
    weight = dispatch.rand((2, 3), seed=9)
    results = {}
    for pipe in (Pipeline.for_training(), Pipeline.for_export()):
        results[pipe.name] = pipe.run(weight).item()
    return results


if __name__ == "__main__":
    main()
