"""Summarise per-layer activation statistics, keeping traced probes out of the numbers."""
from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


def traced(t):
    return t.is_capture


def materialized(t, name):
    guards.ensure_not_capture(t, what=name)
    return t


def collect(layers, batch, into=None):
    stats = {} if into is None else into
    for name, fn in layers.items():
        stats.setdefault(name, []).append(fn(batch))
    return stats


def main():
    layers = {
        "relu": lambda t: t.relu().mean(),
        "tanh": lambda t: t.tanh().mean(),
        "sigmoid": lambda t: t.sigmoid().max(),
    }
    batch = dispatch.rand((3, 4), seed=5)
    probe = dispatch.placeholder((3, 4), name="probe")
    stats = collect(layers, batch)
    collect(layers, probe, into=stats)
    collect(layers, batch * 2.0, into=stats)
    report = {}
    for name, values in stats.items():
        shown = []
        for v in values:
            if traced(v):
                shown.append(str(v))
                continue
            shown.append(f"{v:.3f}")
        report[name] = ", ".join(shown)
    report["first_relu"] = materialized(stats["relu"][0], "first relu").item()
    return report


if __name__ == "__main__":
    main()
