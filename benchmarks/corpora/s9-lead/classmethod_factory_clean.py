"""A classmethod factory builds the model for training from a device string."""

from dispatch_lint import runtime as dispatch


class Regressor:
    default_device = "autodiff:numpy"

    def __init__(self, device):
        self.device = device
        self.w = dispatch.zeros((3,), device=device).require_grad()

    @classmethod
    def for_training(cls):
        return cls(dispatch.device(cls.default_device))

    def loss(self, x):
        return ((self.w * x) ** 2).sum()


def main() -> None:
    model = Regressor.for_training()
    x = dispatch.ones((3,), device=model.device)
    grads = model.loss(x).backward()
    print(model.w.grad(grads).numpy())


if __name__ == "__main__":
    main()
