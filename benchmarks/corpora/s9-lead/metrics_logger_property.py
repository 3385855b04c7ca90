"""A metrics object whose property reads the loss's value; the loss is a capture tensor."""

from dispatch_lint import runtime as dispatch


class Metrics:
    def __init__(self, loss):
        self._loss = loss

    @property
    def value(self):
        return float(self._loss.item())

    def report(self):
        return f"loss={self.value:.4f}"


def build_loss(device):
    x = dispatch.placeholder((3,), device=device, name="x")
    return (x * x).sum()


def main() -> None:
    metrics = Metrics(build_loss(dispatch.Capture()))
    print(metrics.report())  # expect: DL003


if __name__ == "__main__":
    main()
