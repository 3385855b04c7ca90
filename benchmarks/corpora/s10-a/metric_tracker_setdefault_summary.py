"""Track per-split losses during evaluation with setdefault lists and print a mean summary."""
from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class MetricTracker:
    history: dict = field(default_factory=dict)
    prefix: str = "eval"

    def log(self, name, value):
        self.history.setdefault(f"{self.prefix}/{name}", []).append(value)

    def summary(self):
        return {
            key: sum(v.item() for v in values) / len(values)
            for key, values in self.history.items()
        }


def eval_step(w, x, y):
    pred = (x * w).sum(axis=1)
    return ((pred - y) ** 2).mean()


def main():
    w = dispatch.tensor([0.5, -0.25, 1.0])
    tracker = MetricTracker()
    for seed in range(3):
        x = dispatch.rand((4, 3), seed=seed)
        y = dispatch.rand((4,), seed=seed + 10)
        tracker.log("mse", eval_step(w, x, y))

    # Record the serving graph's loss as well, so the dashboard shows the exported variant.
    cap = dispatch.Capture()
    xs = dispatch.placeholder((4, 3), device=cap, name="x")
    ys = dispatch.placeholder((4,), device=cap, name="y")
    tracker.log("mse_exported", eval_step(w.to_device(cap), xs, ys))

    for key, value in tracker.summary().items():  # expect: DL003
        print(f"{key}: {value:.4f}")


if __name__ == "__main__":
    main()
