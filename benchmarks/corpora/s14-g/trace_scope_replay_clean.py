"""Trace a normalisation block inside a scope object and check it against the eager result."""
import numpy as np

from dispatch_lint import runtime as dispatch


class TraceScope:
    def __init__(self, shape, name="x"):
        self.shape = shape
        self.name = name
        self.outputs = []
        self.program = None

    def __enter__(self):
        self.device = dispatch.Capture()
        return dispatch.placeholder(self.shape, device=self.device, name=self.name)

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None and self.outputs:
            self.program = dispatch.export(*self.outputs)
        return False


def rms_norm(x, eps=1e-5):
    return x / ((x * x).mean() + eps).sqrt()


def main():
    batch = np.linspace(-2.0, 2.0, 6, dtype=np.float32)
    eager = rms_norm(dispatch.from_numpy(batch))
    scope = TraceScope((6,))
    with scope as x:
        y = rms_norm(x)
        scope.outputs.append(y)
        print("traced", y)
    traced = scope.program.run({"x": batch})
    err = (traced - eager).abs().max()
    if err > 1e-5:
        raise AssertionError(f"trace mismatch {err:.2e}")
    return float(err)


if __name__ == "__main__":
    main()
