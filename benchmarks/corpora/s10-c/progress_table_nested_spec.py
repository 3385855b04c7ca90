"""Print a fixed-width progress table of exported head statistics with configurable precision."""
from dispatch_lint import runtime as dispatch

COLUMNS = {"name": 12, "value": 10}


def render_row(name, value, precision=4):
    width = COLUMNS["value"]
    fmt = f">{width}.{precision}f"
    return f"{name:<{COLUMNS['name']}}|{value:{fmt}}"


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((8,), device=cap, name="x")
    stats = {
        "mean": x.mean(),
        "max": x.max(),
    }
    print(f"{'stat':<12}|{'value':>10}")
    for name, value in stats.items():
        print(render_row(name, value))  # expect: DL003
    print(dispatch.export(*stats.values()))


if __name__ == "__main__":
    main()
