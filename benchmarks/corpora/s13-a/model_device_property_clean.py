"""A linear probe whose device property switches to capture only for export builds."""
from dispatch_lint import runtime as dispatch


class LinearProbe:
    def __init__(self, n_in, exporting=False):
        self.n_in = n_in
        self.exporting = exporting
        self._train_device = dispatch.Autodiff(dispatch.NumPy())

    @property
    def device(self):
        if self.exporting:
            return dispatch.Capture()
        return self._train_device

    @property
    def weight_shape(self):
        return (self.n_in, 1)

    def fit(self, x, y):
        w = dispatch.zeros(self.weight_shape, device=self.device).require_grad()
        for _ in range(3):
            loss = ((x @ w - y) ** 2).mean()
            grads = loss.backward()
            w = dispatch.Autodiff(dispatch.NumPy()).wrap(w.inner() - 0.1 * w.grad(grads)).require_grad()
        return w, loss


def main():
    probe = LinearProbe(3)
    x = dispatch.rand((6, 3), seed=2, device=probe.device)
    y = dispatch.ones((6, 1), device=probe.device)
    w, loss = probe.fit(x, y)
    print(f"final loss {loss.item():.4f}", w.shape)
    return loss.item()


if __name__ == "__main__":
    main()
