"""Exporters registered by a decorator, looked up by name; the export one is replayed first."""

from dispatch_lint import runtime as dispatch

EXPORTERS = {}


def exporter(name):
    def register(fn):
        EXPORTERS[name] = fn
        return fn
    return register


@exporter("graph")
def export_graph(model_fn):
    cap = dispatch.Capture()
    x = dispatch.placeholder((2, 2), device=cap, name="x")
    return dispatch.export(model_fn(x))


@exporter("eager")
def run_eager(model_fn):
    return model_fn(dispatch.ones((2, 2)))


def model(x):
    return (x @ x).tanh()


def main() -> None:
    program = EXPORTERS["graph"](model)
    result = program.run({"x": [[1.0, 0.0], [0.0, 1.0]]})
    print(result.numpy())
    print(EXPORTERS["eager"](model).numpy())


if __name__ == "__main__":
    main()
