"""Train with a callable loss module that can also trace its loss for export, unused here."""
from dispatch_lint import runtime as dispatch


class WeightedMSE:
    def __init__(self, weights, trace=False):
        self.weights = weights
        self.trace = trace
        self.capture = dispatch.Capture()
        self.calls = 0

    def __call__(self, pred, target):
        self.calls += 1
        if self.trace:
            pred = dispatch.placeholder(pred.shape, device=self.capture, name="pred")
            target = target.to_device(self.capture)
        return (self.weights * (pred - target) ** 2).mean()


def main():
    device = dispatch.Autodiff(dispatch.NumPy())
    loss_fn = WeightedMSE(dispatch.tensor([1.0, 2.0, 0.5]))
    w = dispatch.rand((3,), seed=2, device=device).require_grad()
    target = dispatch.tensor([0.0, 1.0, 0.0])
    for _ in range(4):
        loss = loss_fn(w * 2.0, target)
        grads = loss.backward()
        w = (w - 0.1 * w.grad(grads)).require_grad()
    print(loss_fn.calls, round(loss.item(), 4))


if __name__ == "__main__":
    main()
