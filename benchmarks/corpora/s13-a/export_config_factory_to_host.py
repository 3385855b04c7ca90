"""Build the scoring graph from a dataclass export config and copy the scores to the host."""
from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class ExportConfig:
    batch: int = 4
    features: int = 3
    device: dispatch.Device = field(default_factory=dispatch.Capture)
    tags: list = field(default_factory=list)

    def input_shape(self):
        return (self.batch, self.features)


def build_scores(cfg, weights):
    feats = dispatch.placeholder(cfg.input_shape(), device=cfg.device, name="feats")
    w = weights.to_device(cfg.device)
    return (feats @ w).sigmoid()


def main():
    cfg = ExportConfig(batch=2)
    cfg.tags.append("scorer-v2")
    weights = dispatch.rand((cfg.features, 1), seed=7)
    scores = build_scores(cfg, weights)
    program = dispatch.export(scores)
    host = scores.to_device(dispatch.NumPy())  # expect: DL002
    print(cfg.tags, program, host.shape)
    return host


if __name__ == "__main__":
    main()
