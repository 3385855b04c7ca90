"""A serving session that warms up on the host, then traces its scaled head for export."""
from dispatch_lint import runtime as dispatch


class Session:
    def __init__(self, dim):
        self.device = dispatch.NumPy()
        self.bias = dispatch.zeros((dim,))

    def begin_trace(self):
        self.device = dispatch.Capture()

    def head(self, x):
        return (x + self.bias).sigmoid()


class ScaledSession(Session):
    def __init__(self, dim, scale):
        super().__init__(dim)
        self.scale = scale

    def head(self, x):
        return super().head(x * self.scale)


def main():
    session = ScaledSession(3, scale=0.5)
    warm = session.head(dispatch.ones((2, 3), device=session.device))
    warm_mean = warm.mean().item()
    session.begin_trace()
    x = dispatch.placeholder((2, 3), device=session.device, name="features")
    out = session.head(x)  # expect: DL008
    program = dispatch.export(out)
    return warm_mean, program.to_json()


if __name__ == "__main__":
    main()
