"""A regressor assembled from a gradient-step mixin and an export mixin, fit on replayed outputs."""
from dispatch_lint import runtime as dispatch


class SGDMixin:
    lr = 0.05

    def sgd_step(self, x, y):
        loss = ((self.predict(x) - y) ** 2).mean()
        grads = loss.backward()
        self.w = (self.w - self.lr * self.w.grad(grads)).require_grad()
        return loss


class ExportMixin:
    def export_program(self, x):
        cap = x.device
        return dispatch.export(x @ self.w.inner().to_device(cap))


class Regressor(ExportMixin, SGDMixin):
    def __init__(self, dim):
        self.w = dispatch.rand((dim, 1), seed=0, device="autodiff:numpy").require_grad()

    def predict(self, x):
        return x @ self.w


def main():
    model = Regressor(3)
    x, y = dispatch.rand((8, 3), seed=1), dispatch.rand((8, 1), seed=2)
    xs = dispatch.placeholder((8, 3), device=dispatch.Capture(), name="x")
    program = model.export_program(xs)
    features = program.run({"x": x})
    for _ in range(3):
        loss = model.sgd_step(features.reshape(8, 1) * x, y)
    print(f"final loss {loss.item():.5f}")


if __name__ == "__main__":
    main()
