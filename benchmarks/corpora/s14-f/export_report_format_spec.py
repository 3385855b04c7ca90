"""Summarise an exported scoring model's outputs with formats computed from a precision table."""
from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class ReportConfig:
    precision: dict = field(default_factory=lambda: {"score": 3, "margin": 2})
    style: str = "f"

    def spec_for(self, name):
        return f".{self.precision.get(name, 4)}{self.style}"


@dataclass
class ScoreReport:
    config: ReportConfig = field(default_factory=ReportConfig)
    outputs: dict = field(default_factory=dict)

    def add(self, name, value):
        self.outputs[name] = value
        return self

    def summary(self):
        parts = sorted(
            (format(value, self.config.spec_for(name)) for name, value in self.outputs.items()),
            key=len,
        )
        return ", ".join(parts)


def score(x, w, b):
    logits = x @ w + b
    return logits.sigmoid().mean(), (logits.max() - logits.mean())


def main():
    w = dispatch.tensor([[0.4], [-0.2], [0.1]])
    b = dispatch.tensor([0.05])
    cap = dispatch.Capture()
    x = dispatch.placeholder((4, 3), device=cap, name="features")
    mean_score, margin = score(x, w.to_device(cap), b.to_device(cap))
    program = dispatch.export(mean_score, margin)
    print(program.to_json()[:60])
    report = ScoreReport(config=ReportConfig(style="e"))
    report.add("score", mean_score).add("margin", margin)
    text = report.summary()  # expect: DL003
    print(text)
    return text


if __name__ == "__main__":
    main()
