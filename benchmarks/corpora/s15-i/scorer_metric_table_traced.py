"""Compare validation metrics of an eager scorer, its replayed export and the trace itself."""
from dispatch_lint import runtime as dispatch


class Scorer:
    def __init__(self, device):
        self.w = dispatch.rand((5, 1), seed=11).to_device(device)
        self.b = dispatch.full((1,), 0.1).to_device(device)

    def __call__(self, x):
        return (x @ self.w + self.b).sigmoid()


def summarize(preds, target):
    err = preds - target
    return {"mse": (err * err).mean(), "bias": err.mean()}


def main():
    x = dispatch.rand((10, 5), seed=4)
    target = dispatch.full((10, 1), 0.5)
    metrics = {"eager": summarize(Scorer(dispatch.NumPy())(x), target)}
    cap = dispatch.Capture()
    traced = Scorer(cap)(dispatch.placeholder((10, 5), device=cap, name="x"))
    program = dispatch.export(traced)
    metrics["replayed"] = summarize(program.run({"x": x}), target)
    metrics["traced"] = summarize(traced, target.to_device(cap))
    rows = []
    for source, values in metrics.items():
        if not values:
            break
        for name, value in values.items():
            rows.append(f"{source:>9} {name:<5} {value:.5f}")  # expect: DL003
    print("\n".join(rows))
    return rows


if __name__ == "__main__":
    main()
