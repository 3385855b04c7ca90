"""Print an evaluation table whose column formats come from a spec dict."""
from dispatch_lint import runtime as dispatch

FORMATS = {"loss": ".4f", "acc": ".2%", "tokens": ",.0f"}


def main():
    preds = dispatch.tensor([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])
    labels = dispatch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    row = {
        "loss": ((preds - labels) ** 2).mean(),
        "acc": dispatch.tensor(2 / 3),
        "tokens": dispatch.tensor(12800.0),
    }
    cap = dispatch.Capture()
    row["loss"] = (dispatch.placeholder((3, 2), device=cap, name="p") - labels.to_device(cap)).abs().mean()
    cells = []
    for column, fmt in FORMATS.items():
        value = row.get(column)
        if value is None:
            cells.append("-")
            continue
        cells.append(f"{column}={value:{fmt}}")  # expect: DL003
    print("  ".join(cells))
    return cells


if __name__ == "__main__":
    main()
