"""Build run configs from presets and take one fine-tuning step for every trainable preset."""
from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class RunConfig:
    name: str
    device: dispatch.Device = field(default_factory=lambda: dispatch.Autodiff(dispatch.NumPy()))
    lr: float = 0.05
    trainable: bool = True

    @classmethod
    def for_export(cls, name):
        return cls(name, device=dispatch.Capture(), trainable=False)

    @property
    def label(self):
        return f"{self.name}@{self.device!r}"


def finetune(cfg, features):
    w = dispatch.ones((features.shape[1], 1), device=cfg.device).require_grad()
    loss = (features @ w).tanh().mean()
    grads = loss.backward()
    return w.inner() - cfg.lr * w.grad(grads)


def main():
    features = dispatch.rand((4, 3), seed=3)
    presets = [RunConfig("base"), RunConfig("wide", lr=0.01), RunConfig.for_export("serve")]
    updated = {}
    for cfg in presets:
        if cfg.name.startswith("eval"):
            continue
        lifted = dispatch.Autodiff(dispatch.NumPy()).wrap(features)
        updated[cfg.label] = finetune(cfg, lifted)  # expect: DL001
    return updated


if __name__ == "__main__":
    main()
