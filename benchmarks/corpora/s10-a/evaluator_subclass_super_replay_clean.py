"""Evaluate a model through a subclass whose prepare() replays the exported graph after super()."""
from dispatch_lint import runtime as dispatch


class Evaluator:
    def __init__(self):
        self.results = {}

    def prepare(self, outputs):
        return list(outputs)

    def evaluate(self, outputs, targets):
        prepared = self.prepare(outputs)
        for i, (pred, target) in enumerate(zip(prepared, targets)):
            self.results[f"batch{i}"] = ((pred - target) ** 2).mean().item()
        return self.results


class ReplayEvaluator(Evaluator):
    def __init__(self, program, batches):
        super().__init__()
        self.program = program
        self.batches = batches

    def prepare(self, outputs):
        traced = super().prepare(outputs)
        return [self.program.run({"x": b}) for b, _ in zip(self.batches, traced)]


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((3, 2), device=cap, name="x")
    w = dispatch.tensor([[1.0], [2.0]]).to_device(cap)
    out = x @ w
    program = dispatch.export(out)
    batches = [dispatch.rand((3, 2), seed=s).numpy() for s in range(2)]
    targets = [dispatch.zeros((3, 1)) for _ in batches]
    evaluator = ReplayEvaluator(program, batches)
    results = evaluator.evaluate([out, out], targets)
    print(sorted(results.items()))


if __name__ == "__main__":
    main()
