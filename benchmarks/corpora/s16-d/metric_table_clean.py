"""Export a feature normalizer, replay it, and log its statistics with configurable formats."""

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards

FORMATS = {"value": ".4f", "count": "d", "width": 12}


def normalizer(x, eps=1e-5):
    centered = x - x.mean(axis=0, keepdims=True)
    scale = ((centered ** 2).mean(axis=0, keepdims=True) + eps).sqrt()
    return centered / scale


def describe(t, spec):
    """A log-friendly rendering: capture tensors by their repr, real ones by value."""
    if dispatch.is_capture(t):
        return f"{t}"
    return format(t.sum(), spec)


def table(rows, layout):
    width, spec = layout["width"], layout["value"]
    lines = []
    for name, value in rows.items():
        if guards.is_capture(value):
            lines.append(f"{name:<10}{value!r:>{width}}")
            continue
        if value.dtype.kind == "i":
            lines.append(f"{name:<10}{value:>{width}{layout['count']}}")
        else:
            lines.append(f"{name:<10}{value:>{width}{spec}}")
    return "\n".join(lines)


def main():
    x = dispatch.placeholder((5, 3), name="x")
    normed_trace = normalizer(x)
    peak_trace = normed_trace.abs().max()
    print("traced:", describe(normed_trace, FORMATS["value"]))
    program = dispatch.export(normed_trace, peak_trace)
    data = dispatch.rand((5, 3), seed=2)
    normed, peak = program.run({"x": data})
    print("checksum", describe(normed, FORMATS["value"]))
    rows = {
        "peak": peak,
        "mean": normed.mean(),
        "rows": dispatch.tensor(normed.shape[0]),
        "trace": peak_trace,
    }
    print(table(rows, FORMATS))
    spec = "+." + str(2) + "e"
    print(f"max |z| = {peak:{spec}}", format(normed.max(), spec))


if __name__ == "__main__":
    main()
