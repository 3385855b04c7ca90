"""Print a per-metric table with a column width and precision chosen for each metric."""
from dispatch_lint import runtime as dispatch

PRECISION = {"loss": 4, "accuracy": 2, "latency_ms": 1}


def cell(value, key, width=10):
    digits = PRECISION.get(key, 3)
    fmt = f">{width}.{digits}f"
    return f"{value:{fmt}}"


def render(rows):
    lines = []
    for key, value in rows:
        spec = "<12"
        lines.append(format(key, spec) + cell(value, key))
    return "\n".join(lines)


def main():
    cap = dispatch.Capture()
    latency = dispatch.placeholder((), device=cap, name="latency_ms")
    loss = dispatch.tensor([0.31, 0.27, 0.29]).mean()
    accuracy = dispatch.tensor(0.875)
    host_rows = [("loss", loss), ("accuracy", accuracy)]
    print(render(host_rows))
    traced_rows = host_rows + [("latency_ms", latency * 1000.0)]
    table = render(traced_rows)  # expect: DL003
    return table


if __name__ == "__main__":
    main()
