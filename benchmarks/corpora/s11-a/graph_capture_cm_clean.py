"""A GraphCapture context manager that exports the output set inside it; results are read from a replay."""
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
            self.output = None
        return False

    def input(self, shape, name):
        return dispatch.placeholder(shape, device=self.device, name=name)


def main():
    w = dispatch.rand((4, 2), seed=0)
    with GraphCapture("scorer") as graph:
        x = graph.input((3, 4), "x")
        graph.output = (x @ w.to_device(graph.device)).sigmoid().max(axis=1)
        print(f"traced {graph.output}")
    if graph.output is not None:
        print(graph.output.tolist())
    best = graph.program.run({"x": dispatch.rand((3, 4), seed=1)}, device="numba")
    print(graph.name, best.tolist())


if __name__ == "__main__":
    main()
