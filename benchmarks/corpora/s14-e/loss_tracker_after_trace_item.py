"""Track the last loss of a small regression model across eager steps and an export trace."""
from dispatch_lint import runtime as dispatch


class LossTracker:
    def __init__(self):
        self.last = None
        self.history = []

    def observe(self, loss):
        self.last = loss

    def flush(self):
        value = self.last.item()
        self.history.append(value)
        return value


def mse(pred, target):
    diff = pred - target
    return (diff * diff).mean()


def main():
    tracker = LossTracker()
    ad = dispatch.Autodiff(dispatch.NumPy())
    w = dispatch.tensor([0.5, -0.3], device=ad).require_grad()
    x = dispatch.tensor([[1.0, 2.0], [3.0, 4.0]], device=ad)
    y = dispatch.tensor([1.0, 0.0], device=ad)
    for _ in range(3):
        loss = mse((x * w).sum(axis=1), y)
        tracker.observe(loss)
        tracker.flush()
        grads = loss.backward()
        w = (w.inner() - 0.01 * w.grad(grads))
        w = ad.from_inner(w).require_grad()
    cap = dispatch.Capture()
    xs = dispatch.placeholder((2, 2), device=cap, name="x")
    tracker.observe(mse((xs * w.inner().to_device(cap)).sum(axis=1), y.inner().to_device(cap)))
    program = dispatch.export(tracker.last)
    final = tracker.flush()  # expect: DL003
    return program, final


if __name__ == "__main__":
    main()
