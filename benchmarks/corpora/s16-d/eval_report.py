"""Evaluate an exported classifier and print a fixed-width metrics table."""

import numpy as np

from dispatch_lint import runtime as dispatch

REPORT = {"width": 10, "digits": 4, "skip": ("calibration",)}


def classifier(logits, temperature):
    return (logits / temperature).sigmoid()


def export_metrics(batch, classes):
    logits = dispatch.placeholder((batch, classes), name="logits")
    probs = classifier(logits, 1.5)
    confidence = probs.max(axis=1)
    program = dispatch.export(probs.mean(), confidence.mean())
    return program, probs, confidence


def collect(batch=8, classes=4):
    program, probs, confidence = export_metrics(batch, classes)
    sample = np.random.default_rng(3).normal(size=(batch, classes)).astype(np.float32)
    mean_prob, mean_conf = program.run({"logits": sample})
    metrics = {
        "mean_prob": mean_prob,
        "mean_conf": mean_conf,
        "calibration": None,
        # The margin was added later; it is computed on the traced outputs, not on a replay.
        "margin": (confidence - probs.mean(axis=1)).mean(),
    }
    return metrics


def render(metrics, layout):
    width, digits = layout["width"], layout["digits"]
    rows = [f"{'metric':<12}{'value':>{width}}"]
    for name, value in metrics.items():
        if name in layout["skip"] or value is None:
            continue
        rows.append(f"{name:<12}{value:>{width}.{digits}f}")
    return "\n".join(rows)


def main():
    metrics = collect()
    print(render(metrics, REPORT))  # expect: DL003


if __name__ == "__main__":
    main()
