"""Log scalar metrics, rejecting capture outputs through a helper that always raises."""
import logging

from dispatch_lint import runtime as dispatch

log = logging.getLogger("metrics")


class UnsupportedMetric(Exception):
    pass


def _reject(name, reason):
    log.error("metric %s rejected: %s", name, reason)
    raise UnsupportedMetric(f"{name}: {reason}")


def scalar_for_log(name, t):
    if dispatch.is_capture(t):
        _reject(name, "capture tensors hold no data; replay the program first")
    return float(t.mean())


def main():
    real = dispatch.tensor([0.25, 0.75, 0.5])
    cap = dispatch.placeholder((3,), name="acc")
    logged = {}
    for name, value in (("train/acc", real), ("export/acc", cap)):
        try:
            logged[name] = scalar_for_log(name, value)
        except UnsupportedMetric as exc:
            log.warning("skipped %s", exc)
    print(logged)


if __name__ == "__main__":
    main()
