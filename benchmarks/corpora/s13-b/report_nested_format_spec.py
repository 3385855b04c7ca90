"""Print an aligned metrics table whose column widths and number formats come from a config."""
from dispatch_lint import runtime as dispatch

FORMATS = {"loss": ".4f", "accuracy": ".1%"}


def eval_rows():
    preds = dispatch.tensor([0.9, 0.2, 0.7, 0.4])
    labels = dispatch.tensor([1.0, 0.0, 1.0, 1.0])
    rows = [("loss", ((preds - labels) ** 2).mean())]
    rows.append(("accuracy", ((preds > 0.5) == (labels > 0.5)).mean()))
    x = dispatch.placeholder((4,), name="preds")
    rows.append(("export_loss", ((x - labels.to_device(x.device)) ** 2).mean()))
    return rows


def main():
    width = max(len(name) for name, _ in eval_rows()) + 2
    lines = []
    for name, value in eval_rows():
        spec = FORMATS.get(name, ".3g")
        lines.append(f"{name:<{width}}{value:>{width}{spec}}")  # expect: DL003
    print("\n".join(lines))
    return lines


if __name__ == "__main__":
    main()
