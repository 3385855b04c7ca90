"""Evaluate a metric suite over a batch and render it as a fixed-width table."""
import functools

from dispatch_lint import runtime as dispatch


def traced_error(cap, preds, targets):
    served = dispatch.placeholder(preds.shape, device=cap, name="served_preds")
    return (served - targets.to_device(cap)).abs().mean()


def build_suite(export_device):
    return {
        "mse": lambda p, t: ((p - t) ** 2).mean(),
        "mae": lambda p, t: (p - t).abs().mean(),
        "max_err": lambda p, t: (p - t).abs().max(),
        "served_mae": functools.partial(traced_error, export_device),
    }


def main():
    preds = dispatch.rand((5, 2), seed=7)
    targets = dispatch.rand((5, 2), seed=8)
    suite = build_suite(dispatch.Capture())
    results = {name: metric(preds, targets) for name, metric in suite.items()}
    width, precision = 10, 4
    spec = f">{width}.{precision}f"
    header = " ".join(f"{name:>{width}}" for name in sorted(results))
    row = [format(results[name], spec) for name in sorted(results)]  # expect: DL003
    print(header)
    print(" ".join(row))
    return row


if __name__ == "__main__":
    main()
