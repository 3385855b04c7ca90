"""A fine-tuning head that overrides the exporter base class's device to train with autodiff."""
from dispatch_lint import runtime as dispatch


class ExportableHead:
    def __init__(self, n_in, n_out):
        self.device = self.make_device()
        self.w = dispatch.rand((n_in, n_out), seed=5, device=self.device)

    def make_device(self):
        return dispatch.Capture()

    def forward(self, x):
        return (x @ self.w).tanh()


class FineTuneHead(ExportableHead):
    def __init__(self, n_in, n_out, lr=0.1):
        super().__init__(n_in, n_out)
        self.lr = lr
        self.w = self.w.require_grad()

    def make_device(self):
        return dispatch.Autodiff(dispatch.NumPy())

    def forward(self, x):
        return super().forward(x) * 2.0


def main():
    head = FineTuneHead(3, 2)
    x = dispatch.ones((5, 3), device=head.device)
    loss = head.forward(x).sum()
    grads = loss.backward()
    step = head.w.grad(grads)
    print("grad norm", float((step * step).sum().sqrt()))
    return step.shape


if __name__ == "__main__":
    main()
