"""Format evaluation metrics for a log line through a shared formatting helper."""
from dispatch_lint import runtime as dispatch

SPECS = {"loss": ".4f", "acc": ".2%", "tokens": ",d"}


def fmt_metric(key, value):
    spec = SPECS.get(key, "g")
    return f"{key}={format(value, spec)}"


def eval_metrics(logits, labels):
    correct = (logits.sigmoid() > 0.5) == labels
    return {
        "loss": ((logits.sigmoid() - labels) ** 2).mean(),
        "acc": correct.astype("float32").mean(),
    }


def main():
    cap = dispatch.Capture()
    logits = dispatch.placeholder((6,), device=cap, name="logits")
    labels = dispatch.placeholder((6,), device=cap, name="labels")
    metrics = eval_metrics(logits, labels)
    print(" ".join(fmt_metric(k, v) for k, v in metrics.items()))  # expect: DL003


if __name__ == "__main__":
    main()
