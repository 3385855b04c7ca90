"""Record a normalizer inside a context manager that exports the graph on exit, then run it."""
import numpy as np

from dispatch_lint import runtime as dispatch


class ExportSession:
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

    def emit(self, t):
        self.outputs.append(t)


def main():
    session = ExportSession((4, 2))
    with session as x:
        centered = x - x.mean(axis=0)
        session.emit(centered / (centered * centered).mean(axis=0).sqrt())
    batch = np.arange(8, dtype=np.float32).reshape(4, 2)
    out = session.program.run({"x": batch})
    print(f"max {out.max().item():.3f}", out.tolist()[0])
    return out.numpy()


if __name__ == "__main__":
    main()
