"""A context manager that exports on exit; the loss inside is trained on a real device."""

from dispatch_lint import runtime as dispatch


class ExportOnExit:
    def __init__(self, shape):
        self.shape = shape
        self.program = None

    def __enter__(self):
        self.cap = dispatch.Capture()
        return dispatch.placeholder(self.shape, device=self.cap, name="x")

    def __exit__(self, *exc):
        return False


def main() -> None:
    with ExportOnExit((2,)) as x:
        graph = dispatch.export((x * 3.0).tanh())
    real = graph.run({"x": [1.0, 2.0]})
    dev = dispatch.Autodiff(dispatch.NumPy())
    w = dispatch.tensor(real.numpy(), device=dev).require_grad()
    print(w.grad((w * w).sum().backward()).numpy())


if __name__ == "__main__":
    main()
