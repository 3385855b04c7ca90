"""A GraphCapture context manager that exports whatever output was set inside it on exit."""
from dispatch_lint import runtime as dispatch


class GraphCapture:
    def __init__(self, name):
        self.name = name
        self.device = None
        self.output = None
        self.program = None

    def __enter__(self):
        self.device = dispatch.Capture()
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None and self.output is not None:
            self.program = dispatch.export(self.output)
        return False

    def input(self, shape, name):
        return dispatch.placeholder(shape, device=self.device, name=name)


def main():
    w = dispatch.rand((4, 2), seed=0)
    with GraphCapture("scorer") as graph:
        x = graph.input((3, 4), "x")
        graph.output = (x @ w.to_device(graph.device)).sigmoid().max(axis=1)
    print(graph.name, "exported", graph.program is not None)
    best = graph.output.tolist()  # expect: DL003
    print(best)


if __name__ == "__main__":
    main()
