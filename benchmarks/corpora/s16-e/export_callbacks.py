"""Train a linear regressor, then export it while running export-time callbacks."""

from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class ExportConfig:
    capture_device: str = "capture"
    serve_device: str = "numba"
    batch: int = 4
    callbacks: list = field(default_factory=list)


def train(steps: int = 25, lr: float = 0.1) -> dict:
    dev = dispatch.device("autodiff:numpy")
    x = dispatch.rand((16, 3), seed=1)
    y = x @ dispatch.tensor([[1.0], [-2.0], [0.5]])
    w = dispatch.zeros((3, 1), device=dev).require_grad()
    for _ in range(steps):
        loss = ((x @ w - y) ** 2).mean()
        grads = loss.backward()
        w = (w - lr * w.grad(grads)).require_grad()
    return {"w": w.inner()}


def log_graph(state: dict) -> None:
    print("captured prediction:", state["pred"])


def check_gradients(state: dict) -> None:
    grads = state["loss"].backward()
    state["grad_ok"] = state["w"].grad(grads) is not None


def export_with_checks(params: dict, cfg: ExportConfig) -> dispatch.Program:
    cap = dispatch.device(cfg.capture_device)
    x = dispatch.placeholder((cfg.batch, 3), device=cap, name="x")
    y = dispatch.placeholder((cfg.batch, 1), device=cap, name="y")
    w = params["w"].to_device(cap)
    pred = x @ w
    loss = ((pred - y) ** 2).mean()
    state = {"pred": pred, "loss": loss, "w": w}
    for callback in cfg.callbacks:
        callback(state)  # expect: DL001
    return dispatch.export(pred, loss)


def main() -> None:
    cfg = ExportConfig(callbacks=[log_graph, check_gradients])
    program = export_with_checks(train(), cfg)
    x = dispatch.rand((cfg.batch, 3), seed=9)
    y = x @ dispatch.tensor([[1.0], [-2.0], [0.5]])
    pred, loss = program.run({"x": x, "y": y}, device=cfg.serve_device)
    print(f"served loss {loss.item():.5f}, first prediction {pred.tolist()[0]}")


if __name__ == "__main__":
    main()
