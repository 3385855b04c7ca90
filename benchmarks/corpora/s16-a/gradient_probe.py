"""Probe gradients of a small regressor, then of the graph recorded in a capture session."""

from dispatch_lint import runtime as dispatch


class CaptureSession:
    """Record a program on a fresh capture device; export it when the block ends."""

    def __init__(self, name: str = "x") -> None:
        self.name = name
        self.device: dispatch.Device | None = None
        self.outputs: list[dispatch.Tensor] = []
        self.program: dispatch.Program | None = None

    def __enter__(self) -> "CaptureSession":
        self.device = dispatch.Capture()
        return self

    def input(self, shape: tuple[int, ...]) -> dispatch.Tensor:
        return dispatch.placeholder(shape, device=self.device, name=self.name)

    def constant(self, t: dispatch.Tensor) -> dispatch.Tensor:
        return t.to_device(self.device)

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None and self.outputs:
            self.program = dispatch.export(*self.outputs)
        return False


class GradientProbe:
    """Call with a scalar loss; remembers the gradient of each watched parameter."""

    def __init__(self, **params: dispatch.Tensor) -> None:
        self.params = params
        self.history: list[dict[str, float]] = []

    def __call__(self, loss: dispatch.Tensor) -> dict[str, float]:
        grads = loss.backward()
        norms = {}
        for name, p in self.params.items():
            g = p.grad(grads)
            norms[name] = 0.0 if g is None else float((g * g).sum().sqrt())
        self.history.append(norms)
        return norms


def main() -> None:
    ad = dispatch.Autodiff(dispatch.NumPy())
    w = dispatch.rand((3, 1), seed=1, device=ad).require_grad()
    x = dispatch.rand((8, 3), seed=2, device=ad)
    y = dispatch.ones((8, 1), device=ad)
    probe = GradientProbe(w=w)
    print("eager", probe(((x @ w - y) ** 2).mean()))

    with CaptureSession(name="x") as session:
        plain_w = dispatch.rand((3, 1), seed=1)
        pred = session.input((8, 3)) @ session.constant(plain_w)
        loss = ((pred - 1.0) ** 2).mean()
        session.outputs.append(loss)
        probe(loss)  # expect: DL001
    print("program", session.program)


if __name__ == "__main__":
    main()
