"""Collect evaluation metrics per split and print a formatted report."""

from dispatch_lint import runtime as dispatch

PRECISION = ".4f"
_REPORTS_WRITTEN = 0


def _split_inputs(split, shape):
    match split:
        case "train" | "valid":
            return dispatch.rand(shape, seed=len(split))
        case "export":
            return dispatch.placeholder(shape, name="batch")
        case _:
            raise ValueError(f"unknown split {split!r}")


def _metric_values(x):
    return {"mean": x.mean(), "peak": x.max(), "energy": (x * x).sum()}


def collect(splits, shape):
    metrics = {}
    for split in splits:
        for name, value in _metric_values(_split_inputs(split, shape)).items():
            metrics.setdefault(name, []).append((split, value))
    return metrics


def render(metrics):
    global _REPORTS_WRITTEN
    lines = []
    try:
        for name, rows in metrics.items():
            cells = ", ".join(f"{split}={value:{PRECISION}}" for split, value in rows)
            lines.append(f"{name}: {cells}")
    except (KeyError, TypeError) as exc:
        print(f"report failed: {exc}")
        raise
    finally:
        _REPORTS_WRITTEN += 1
    return "\n".join(lines)


def main():
    shape = (8, 4)
    print(render(collect(["train", "valid"], shape)))
    metrics = collect(["train", "valid", "export"], shape)
    splits = sorted({split for rows in metrics.values() for split, _ in rows})
    print(f"report #{_REPORTS_WRITTEN + 1} covers {splits}")
    print(render(metrics))  # expect: DL003


if __name__ == "__main__":
    main()
