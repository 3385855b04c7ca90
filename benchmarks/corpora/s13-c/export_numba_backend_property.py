"""Export a scoring head and move its outputs onto the fused Numba backend for serving."""
from dispatch_lint import runtime as dispatch


class ScoringHead:
    def __init__(self, weight):
        self.weight = weight
        self._cap = None

    @property
    def export_device(self):
        if self._cap is None:
            self._cap = dispatch.Capture()
        return self._cap

    def __call__(self, x):
        return (x @ self.weight.to_device(x.device)).tanh()

    def trace(self, batch):
        x = dispatch.placeholder((batch, self.weight.shape[0]), device=self.export_device, name="x")
        return self(x)


class Server:
    def __init__(self, backend="numba"):
        self.backend = dispatch.device(backend)

    def _place(self, t):
        return t.to_device(self.backend)

    def warm(self, outputs):
        return [self._place(t).sum() for t in outputs]


def main():
    head = ScoringHead(dispatch.tensor([[0.3], [-0.2], [0.8]]))
    traced = head.trace(batch=4)
    program = dispatch.export(traced)
    batch = dispatch.rand((4, 3), seed=5)
    server = Server()
    served = server.warm([program.run({"x": batch.numpy()})])
    probe = server.warm([head(batch), traced])  # expect: DL002
    return served, probe


if __name__ == "__main__":
    main()
