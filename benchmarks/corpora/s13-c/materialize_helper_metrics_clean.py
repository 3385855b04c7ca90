"""Report metrics of an eager model and its exported twin through a materializing helper."""
from dispatch_lint import runtime as dispatch


def materialize(t, program, feed):
    if dispatch.is_capture(t):
        return program.run(feed)
    return t


class Metrics:
    def __init__(self):
        self.rows = {}

    def add(self, name, value, program=None, feed=None):
        value = materialize(value, program, feed)
        self.rows[name] = value.item()
        return self

    def table(self, spec=".4f"):
        return "\n".join(f"{k:<10}{v:{spec}}" for k, v in self.rows.items())


def forward(w, x):
    return (x @ w.to_device(x.device)).sigmoid().mean()


def main():
    w = dispatch.tensor([[0.7], [-0.3], [0.1]])
    data = dispatch.rand((5, 3), seed=11)
    xp = dispatch.placeholder((5, 3), device=dispatch.Capture(), name="x")
    traced = forward(w, xp)
    program = dispatch.export(traced)
    metrics = Metrics()
    metrics.add("eager", forward(w, data))
    metrics.add("exported", traced, program=program, feed={"x": data.numpy()})
    print(metrics.table())
    return metrics.rows


if __name__ == "__main__":
    main()
