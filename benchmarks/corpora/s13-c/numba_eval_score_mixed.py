"""Score predictions on the configured eval backend against labels from the data loader."""
from dataclasses import dataclass

from dispatch_lint import runtime as dispatch


@dataclass(frozen=True)
class EvalConfig:
    device: str = "numba"
    batches: int = 2


class Loader:
    def __init__(self, seed):
        self.seed = seed

    def batch(self, i, device=None):
        return dispatch.rand((4, 2), seed=self.seed + i, device=device), dispatch.zeros((4, 1), device=device)


class Evaluator:
    def __init__(self, cfg, weight):
        self.cfg = cfg
        self.device = dispatch.device(cfg.device)
        self.weight = weight.to_device(self.device)

    @staticmethod
    def score(pred, target):
        return ((pred - target) ** 2).mean()

    def predict(self, x):
        return (x @ self.weight).sigmoid()

    def run(self, loader, on_device=True):
        total = 0.0
        for i in range(self.cfg.batches):
            x, y = loader.batch(i, device=self.device if on_device else None)
            total += self.score(self.predict(x.to_device(self.device)), y).item()
        return total / self.cfg.batches


def main():
    ev = Evaluator(EvalConfig(), dispatch.tensor([[0.5], [-0.5]]))
    loader = Loader(seed=10)
    good = ev.run(loader)
    raw = ev.run(loader, on_device=False)  # expect: DL008
    return good, raw


if __name__ == "__main__":
    main()
