"""Track training metrics in a dataclass that records traced metrics by name only."""
from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class Tracker:
    values: dict = field(default_factory=dict)
    traced: list = field(default_factory=list)

    def log(self, **metrics):
        for name, value in metrics.items():
            if value.is_capture:
                self.traced.append(name)
            else:
                self.values.setdefault(name, []).append(value.item())

    def means(self):
        return {k: sum(v) / len(v) for k, v in self.values.items()}


def main():
    tracker = Tracker()
    w = dispatch.tensor([1.0, -2.0])
    cap = dispatch.Capture()
    xs = dispatch.placeholder((3, 2), device=cap, name="x")
    traced_loss = ((xs * w.to_device(cap)).sum(axis=1) ** 2).mean()
    for seed in range(2):
        x = dispatch.rand((3, 2), seed=seed)
        loss = ((x * w).sum(axis=1) ** 2).mean()
        tracker.log(loss=loss, export_loss=traced_loss, weight_norm=(w * w).sum().sqrt())
    print(tracker.means(), tracker.traced)


if __name__ == "__main__":
    main()
