"""Summarise per-split evaluation losses, replaying the traced export probe before reporting."""
import itertools
from operator import itemgetter

from dispatch_lint import runtime as dispatch


def materialize(value, feeds):
    if dispatch.is_capture(value):
        return dispatch.replay(value, feeds)
    return value


def probe_records(width):
    cap = dispatch.Capture()
    x = dispatch.placeholder((width,), device=cap, name="probe_x")
    yield "export", "probe_mse", (x * x).mean()
    yield "export", "probe_max", x.abs().max()


def main():
    preds = dispatch.rand((4, 3), seed=3)
    labels = dispatch.rand((4, 3), seed=4)
    records = [
        ("val", "mse", ((preds - labels) ** 2).mean()),
        ("train", "mse", ((preds - labels * 0.5) ** 2).mean()),
        ("val", "mae", (preds - labels).abs().mean()),
    ]
    records.extend(probe_records(3))
    feeds = {"probe_x": [0.5, -1.5, 2.0]}
    lines = []
    for split, group in itertools.groupby(sorted(records, key=itemgetter(0)), key=itemgetter(0)):
        cells = [(name, materialize(value, feeds)) for _, name, value in group]
        body = ", ".join(f"{name}={value.item():.3f}" for name, value in cells)
        lines.append(f"{split:>6} | {body}")
    print("\n".join(lines))
    return lines


if __name__ == "__main__":
    main()
