"""Export a fitted model, replay it on Numba over held-out batches and summarise metrics."""

from dispatch_lint import runtime as dispatch


class MetricTracker:
    def __init__(self, fmt: str = ".4f") -> None:
        self.fmt = fmt
        self.values: dict[str, list] = {}

    def add(self, name: str, value: dispatch.Tensor) -> None:
        self.values.setdefault(name, []).append(value)

    def means(self) -> dict:
        report = {}
        for name, values in self.values.items():
            total = values[0]
            for v in values[1:]:
                total = total + v
            report[name] = total / len(values)
        return report


def fitted_params() -> dict:
    return {"w": dispatch.tensor([[0.9], [-1.1], [0.4]]), "b": dispatch.tensor([0.05])}


def run_pipeline(batches: list) -> dict:
    capture = dispatch.Capture()
    x = dispatch.placeholder((6, 3), device=capture, name="x")
    y = dispatch.placeholder((6, 1), device=capture, name="y")
    w, b = (fitted_params()[k].to_device(capture) for k in ("w", "b"))
    pred = x @ w + b
    loss = ((pred - y) ** 2).mean()
    program = dispatch.export(pred, loss)

    tracker = MetricTracker()
    for features, targets in batches:
        out, val_loss = program.run({"x": features, "y": targets}, device="numba")
        mae = (out - targets.to_device(out.device)).abs().mean()
        tracker.add("mae", mae)
        tracker.add("loss", loss)
    return {name: f"{mean:{tracker.fmt}}" for name, mean in tracker.means().items()}  # expect: DL003


def main() -> None:
    truth = dispatch.tensor([[1.0], [-1.0], [0.5]])
    batches = []
    for seed in range(4):
        features = dispatch.rand((6, 3), seed=seed)
        batches.append((features, features @ truth))
    for name, value in run_pipeline(batches).items():
        print(f"{name:>5}: {value}")


if __name__ == "__main__":
    main()
