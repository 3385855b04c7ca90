"""Print a metrics table with per-column formats, leaving traced columns as placeholders."""
from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class TableConfig:
    width: int = 10
    specs: dict = field(default_factory=lambda: {"loss": ".4f", "acc": ".1%", "lr": ".1e"})
    fallback: str = ".3g"


def traced(value):
    return dispatch.is_capture(value)


def cell(name, value, cfg):
    if traced(value):
        return f"{name}={value!r:>{cfg.width}}"
    spec = cfg.specs.get(name, cfg.fallback)
    return f"{name}={value:>{cfg.width}{spec}}"


def main():
    cfg = TableConfig(width=8)
    logits = dispatch.rand((4, 3), seed=21)
    labels = dispatch.tensor([0, 2, 1, 1])
    probs = logits.exp() / logits.exp().sum(axis=1, keepdims=True)
    metrics = {
        "loss": -probs.max(axis=1).log().mean(),
        "acc": dispatch.tensor(0.75),
        "lr": dispatch.tensor(3e-4),
        "ema": dispatch.placeholder((), device="capture", name="ema") * 0.9,
    }
    cells = list(map(lambda kv: cell(kv[0], kv[1], cfg), metrics.items()))
    print(" | ".join(cells))
    assert labels.shape == (4,)
    return cells


if __name__ == "__main__":
    main()
