"""Trace a classifier head for export and fetch its logits for a quick sanity print."""
from dataclasses import dataclass, field

import numpy as np

from dispatch_lint import runtime as dispatch


@dataclass
class HeadConfig:
    in_features: int = 6
    num_classes: int = 3
    device: dispatch.Device = field(default_factory=dispatch.Capture)
    tags: list = field(default_factory=list)


class ClassifierHead:
    def __init__(self, cfg: HeadConfig):
        self.cfg = cfg
        w = dispatch.rand((cfg.in_features, cfg.num_classes), seed=3)
        self.weight = w.to_device(cfg.device)
        self.bias = dispatch.zeros((cfg.num_classes,)).to_device(cfg.device)

    def logits(self, features):
        return features @ self.weight + self.bias


def fetch_logits(head, features):
    out = head.logits(features)
    return out.to_device(dispatch.NumPy())


def main():
    cfg = HeadConfig(tags=["export", "v2"])
    head = ClassifierHead(cfg)
    x = dispatch.placeholder((2, cfg.in_features), device=cfg.device, name="features")
    program = dispatch.export(head.logits(x))
    batch = np.ones((2, cfg.in_features), dtype=np.float32)
    scores = program.run({"features": batch})
    print("exported logits", scores.shape, cfg.tags)
    preview = fetch_logits(head, x)  # expect: DL002
    return preview


if __name__ == "__main__":
    main()
