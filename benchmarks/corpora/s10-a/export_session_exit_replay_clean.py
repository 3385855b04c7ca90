"""Export a scorer when its session closes and threshold the replayed scores on the host."""
from dispatch_lint import runtime as dispatch


class ExportSession:
    def __init__(self, name):
        self.name = name
        self.outputs = []
        self.program = None

    def __enter__(self):
        self.device = dispatch.Capture()
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None and self.outputs:
            self.program = dispatch.export(*self.outputs)
        return False

    def input(self, name, shape):
        return dispatch.placeholder(shape, device=self.device, name=name)

    def constant(self, data):
        return dispatch.tensor(data).to_device(self.device)


def main():
    with ExportSession("scorer") as session:
        x = session.input("features", (4, 2))
        w = session.constant([[0.3], [-0.7]])
        scores = (x @ w).sigmoid()
        session.outputs.extend([scores, scores.mean()])

    batch = dispatch.rand((4, 2), seed=7).numpy()
    scores, mean_score = session.program.run({"features": batch})
    host_scores = scores.to_device("numpy")
    kept = [i for i, s in enumerate(host_scores.tolist()) if s[0] > mean_score.item()]
    print(session.name, kept)


if __name__ == "__main__":
    main()
