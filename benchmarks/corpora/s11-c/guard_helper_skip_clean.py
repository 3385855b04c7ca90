"""Log only the evaluated metrics of a run, skipping traced placeholders with a helper guard."""
import logging

from dispatch_lint import runtime as dispatch

log = logging.getLogger(__name__)


def has_data(t):
    return not dispatch.is_capture(t)


def main():
    cap = dispatch.Capture()
    images = dispatch.placeholder((2, 8), device=cap, name="images")
    metrics = {
        "accuracy": dispatch.tensor(0.875),
        "traced_score": images.mean(),
        "loss": dispatch.tensor(0.42),
    }
    metrics["traced_max"] = images.max()
    logged = {}
    for name, value in metrics.items():
        if not has_data(value):
            log.debug("skip %s (%s)", name, value)
            continue
        logged[name] = value.item()
        log.info(f"{name}={value:.3f}")
    return logged


if __name__ == "__main__":
    main()
