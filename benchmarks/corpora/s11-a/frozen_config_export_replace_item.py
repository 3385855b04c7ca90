"""Train a linear probe from a frozen config, then derive an export config with dataclasses.replace."""
import dataclasses

from dispatch_lint import runtime as dispatch


@dataclasses.dataclass(frozen=True)
class ProbeConfig:
    in_features: int = 3
    out_features: int = 2
    lr: float = 0.05
    device: str = "autodiff:numpy"
    steps: int = 3


def train(cfg: ProbeConfig):
    dev = dispatch.device(cfg.device)
    w = dispatch.rand((cfg.in_features, cfg.out_features), seed=0, device=dev).require_grad()
    x = dispatch.rand((8, cfg.in_features), seed=1)
    y = dispatch.rand((8, cfg.out_features), seed=2)
    for _ in range(cfg.steps):
        loss = ((x @ w - y) ** 2).mean()
        grad = w.grad(loss.backward())
        w = (w - cfg.lr * grad).require_grad()
    return w


def main():
    cfg = ProbeConfig()
    weights = train(cfg)
    export_cfg = dataclasses.replace(cfg, device="autodiff:capture", steps=0)
    export_dev = dispatch.device(export_cfg.device)  # expect: DL004
    x = dispatch.placeholder((8, cfg.in_features), device=export_dev, name="x")
    program = dispatch.export(x @ weights.inner().to_device(export_dev))
    print(program.inputs)


if __name__ == "__main__":
    main()
