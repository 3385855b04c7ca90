"""Train with an autodiff config and export with a capture config built by classmethods."""
from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class RunConfig:
    lr: float = 0.05
    device: dispatch.Device = field(default_factory=lambda: dispatch.Autodiff(dispatch.NumPy()))
    callbacks: list = field(default_factory=list)

    @classmethod
    def for_export(cls):
        return cls(lr=0.0, device=dispatch.Capture())

    @staticmethod
    def describe(cfg):
        return f"{type(cfg.device).__name__} lr={cfg.lr}"


def forward(w, x):
    return (x @ w).tanh()


def main():
    train_cfg = RunConfig()
    export_cfg = RunConfig.for_export()
    w = dispatch.rand((3, 1), seed=3, device=train_cfg.device).require_grad()
    x = dispatch.rand((5, 3), seed=4)
    for _ in range(3):
        loss = (forward(w, x) ** 2).mean()
        grads = loss.backward()
        w = (w - train_cfg.lr * w.grad(grads)).require_grad()

    xs = dispatch.placeholder((5, 3), device=export_cfg.device, name="x")
    out = forward(w.inner().to_device(export_cfg.device), xs)
    program = dispatch.export(out)
    print(RunConfig.describe(train_cfg), RunConfig.describe(export_cfg))
    print(program.run({"x": x.numpy()}).shape)


if __name__ == "__main__":
    main()
