"""Print an evaluation report from nested split/metric dicts, including the exported graph's metrics."""
from dispatch_lint import runtime as dispatch


def metrics_for(pred, target):
    err = pred - target
    return {"mse": (err ** 2).mean(), "mae": err.abs().mean()}


def collect(w, splits, exported_split=None):
    results = {}
    for split, (x, y) in splits.items():
        results.setdefault(split, {}).update(metrics_for(x @ w, y))
    if exported_split is not None:
        name, cap = exported_split
        xs = dispatch.placeholder((4, 2), device=cap, name="x")
        ys = dispatch.placeholder((4, 1), device=cap, name="y")
        results[name] = metrics_for(xs @ w.to_device(cap), ys)
    return results


def main():
    w = dispatch.tensor([[0.5], [1.5]])
    splits = {
        name: (dispatch.rand((4, 2), seed=i), dispatch.rand((4, 1), seed=i + 5))
        for i, name in enumerate(["train", "val"])
    }
    results = collect(w, splits, exported_split=("serving", dispatch.Capture()))
    for split, metrics in results.items():
        line = ", ".join(f"{name}={value:.4f}" for name, value in metrics.items())  # expect: DL003
        print(f"{split}: {line}")


if __name__ == "__main__":
    main()
