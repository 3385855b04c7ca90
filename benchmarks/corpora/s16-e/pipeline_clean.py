"""End-to-end: train on autodiff NumPy, export with constant weights, serve on Numba, evaluate."""

from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


@dataclass
class PipelineConfig:
    train_device: str = "autodiff:numpy"
    serve_device: str = "numba"
    lr: float = 0.15
    epochs: int = 8
    batch: int = 8
    truth: list = field(default_factory=lambda: [[0.7], [-1.3], [2.1]])


def describe(name: str, value) -> str:
    if guards.is_capture(value):
        return f"{name}: {value}"
    return f"{name}: {value.item():.4f}"


class Trainer:
    def __init__(self, cfg: PipelineConfig, on_epoch=None) -> None:
        self.cfg = cfg
        self.device = dispatch.device(cfg.train_device)
        self.params = {"w": dispatch.zeros((3, 1), device=self.device).require_grad()}
        self.on_epoch = on_epoch or (lambda epoch, loss: None)

    def fit(self, batches: list) -> dict:
        for epoch in range(self.cfg.epochs):
            for x, y in batches:
                loss = ((x @ self.params["w"] - y) ** 2).mean()
                grads = loss.backward()
                w = self.params["w"]
                self.params["w"] = (w - self.cfg.lr * w.grad(grads)).require_grad()
            self.on_epoch(epoch, loss)
        return {k: p.inner() for k, p in self.params.items()}


def export(params: dict, cfg: PipelineConfig) -> dispatch.Program:
    cap = dispatch.Capture()
    x = dispatch.placeholder((cfg.batch, 3), device=cap, name="x")
    pred = x @ params["w"].to_device(cap)
    print(describe("captured", pred))
    return dispatch.export(pred)


def main() -> None:
    cfg = PipelineConfig()
    truth = dispatch.tensor(cfg.truth)
    batches = [(x, x @ truth) for x in (dispatch.rand((cfg.batch, 3), seed=s) for s in range(4))]
    log: list[str] = []
    trainer = Trainer(cfg, on_epoch=lambda epoch, loss: log.append(describe(f"epoch {epoch}", loss)))
    program = export(trainer.fit(batches), cfg)
    errors = []
    for x, y in batches:
        pred = program.run({"x": x}, device=cfg.serve_device)
        errors.append((pred - y.to_device(cfg.serve_device)).abs().mean())
    mae = sum(errors[1:], errors[0]) / len(errors)
    print(log[-1], "|", describe("serve mae", mae))


if __name__ == "__main__":
    main()
