"""Print an evaluation report from nested split/metric dicts, showing traced metrics as placeholders."""
from dispatch_lint import runtime as dispatch


def metrics_for(pred, target):
    err = pred - target
    return {"mse": (err ** 2).mean(), "mae": err.abs().mean()}


def render(value):
    if dispatch.is_capture(value):
        return f"{value}"
    return f"{value:.4f}"


def main():
    w = dispatch.tensor([[0.5], [1.5]])
    results = {}
    for i, split in enumerate(["train", "val"]):
        x, y = dispatch.rand((4, 2), seed=i), dispatch.rand((4, 1), seed=i + 5)
        results.setdefault(split, {}).update(metrics_for(x @ w, y))
    cap = dispatch.Capture()
    xs = dispatch.placeholder((4, 2), device=cap, name="x")
    ys = dispatch.placeholder((4, 1), device=cap, name="y")
    results["serving"] = metrics_for(xs @ w.to_device(cap), ys)

    for split, metrics in sorted(results.items()):
        print(split, {name: render(v) for name, v in metrics.items()})
    best = min(results["train"].values(), key=lambda t: t.item())
    print("best train metric", best.item())


if __name__ == "__main__":
    main()
