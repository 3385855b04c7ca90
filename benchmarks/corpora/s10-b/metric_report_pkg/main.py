"""Builds a captured evaluation graph and runs every registered reporter on its metrics."""
from dispatch_lint import runtime as dispatch
from metric_report_pkg import reporters  # noqa: F401  (fills the registry)
from metric_report_pkg.registry import run_reporters


def eval_metrics(logits, labels):
    probs = dispatch.sigmoid(logits)
    err = (probs - labels) ** 2.0
    return {"mse": err.mean(), "max_err": err.max(), "mean_prob": probs.mean()}


def main():
    cap = dispatch.Capture()
    logits = dispatch.placeholder((16,), device=cap, name="logits")
    labels = dispatch.placeholder((16,), device=cap, name="labels")
    metrics = eval_metrics(logits, labels)
    program = dispatch.export(*metrics.values())
    logs = run_reporters(metrics)  # expect: DL003
    return program, logs


if __name__ == "__main__":
    main()
