"""Evaluate an autodiff-trained model on Numba inside a device-scope context manager."""

from dispatch_lint import runtime as dispatch


class EvalScope:
    """Pick an evaluation device for a block and count the tensors staged onto it."""

    def __init__(self, spec: str = "numba") -> None:
        self.spec = spec
        self.staged = 0

    def __enter__(self) -> dispatch.Device:
        self.device = dispatch.device(self.spec)
        return self.device

    def __exit__(self, *exc_info) -> None:
        print(f"eval scope {self.device!r}: {self.staged} tensors staged")


class MLP:
    def __init__(self, width: int, device: dispatch.Device) -> None:
        self.w1 = dispatch.rand((width, width), seed=1, device=device).require_grad()
        self.w2 = dispatch.rand((width, 1), seed=2, device=device).require_grad()

    @property
    def parameters(self) -> dict[str, dispatch.Tensor]:
        return {"w1": self.w1, "w2": self.w2}

    @staticmethod
    def forward(params: dict[str, dispatch.Tensor], x: dispatch.Tensor) -> dispatch.Tensor:
        return (x @ params["w1"]).relu() @ params["w2"]


class Checkpoint:
    @staticmethod
    def stage(params: dict[str, dispatch.Tensor], device: dispatch.Device, scope: EvalScope):
        staged = {name: p.to_device(device) for name, p in params.items()}
        scope.staged += len(staged)
        return staged


def main() -> None:
    train_device = dispatch.Autodiff(dispatch.NumPy())
    model = MLP(4, train_device)
    x = dispatch.rand((8, 4), seed=3, device=train_device)
    loss = MLP.forward(model.parameters, x).mean()
    grads = loss.backward()
    print("grad w2", model.w2.grad(grads).tolist())

    scope = EvalScope("numba")
    with scope as device:
        params = Checkpoint.stage(model.parameters, device, scope)  # expect: DL007
        batch = dispatch.rand((8, 4), seed=4, device=device)
        print("eval", MLP.forward(params, batch).mean().item())


if __name__ == "__main__":
    main()
