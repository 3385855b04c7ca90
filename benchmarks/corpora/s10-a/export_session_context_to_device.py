"""Trace a small scorer inside an export session and hand the scores to a NumPy postprocessor."""
from dispatch_lint import runtime as dispatch


class ExportSession:
    def __init__(self, name):
        self.name = name
        self.inputs = {}
        self.program = None

    def __enter__(self):
        self.device = dispatch.Capture()
        return self

    def __exit__(self, exc_type, exc, tb):
        return False

    def input(self, name, shape):
        t = dispatch.placeholder(shape, device=self.device, name=name)
        self.inputs[name] = t
        return t

    def constant(self, data):
        return dispatch.tensor(data).to_device(self.device)


def score(x, w, b):
    return (x @ w + b).sigmoid()


def main():
    with ExportSession("scorer") as session:
        x = session.input("features", (4, 2))
        w = session.constant([[0.3], [-0.7]])
        b = session.constant([0.1])
        scores = score(x, w, b)
        session.program = dispatch.export(scores)

    host_scores = scores.to_device("numpy")  # expect: DL002
    print(session.name, host_scores.shape)


if __name__ == "__main__":
    main()
