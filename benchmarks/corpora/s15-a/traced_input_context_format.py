"""Trace a small scoring head inside a context manager that owns the capture input."""
from dispatch_lint import runtime as dispatch


class TracedInput:
    """Creates a named placeholder on its own capture device for the duration of a block."""

    def __init__(self, shape, name="features"):
        self.shape = shape
        self.name = name
        self.device = None
        self.outputs = []

    def __enter__(self):
        self.device = dispatch.Capture()
        return dispatch.placeholder(self.shape, device=self.device, name=self.name)

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            print(f"traced {self.name} on {self.device!r}")
        return False


def score_head(x, weight, bias):
    return (x @ weight + bias).sigmoid()


def main():
    weight = dispatch.rand((6, 1), seed=3)
    bias = dispatch.full((1,), 0.1)
    tracer = TracedInput((4, 6))
    with tracer as features:
        scores = score_head(features, weight.to_device(tracer.device), bias.to_device(tracer.device))
        mean_score = scores.mean()
        print(f"mean score {mean_score:.4f}")  # expect: DL003
        tracer.outputs.append(scores)
    program = dispatch.export(*tracer.outputs)
    return program.run({"features": dispatch.ones((4, 6)).numpy()})


if __name__ == "__main__":
    main()
