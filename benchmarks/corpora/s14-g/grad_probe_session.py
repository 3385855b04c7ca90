"""Probe input gradients of a scoring function inside a reusable device session."""
from dispatch_lint import runtime as dispatch


class DeviceSession:
    def __init__(self, spec="autodiff:numpy"):
        self.spec = spec
        self.device = None
        self.opened = 0

    def __enter__(self):
        self.device = dispatch.device(self.spec)
        self.opened += 1
        return self.device

    def __exit__(self, exc_type, exc, tb):
        self.device = None
        return False


def score(x, weight):
    return ((x * weight).tanh() ** 2).sum()


def probe(dev, values):
    x = dispatch.tensor(values, device=dev).require_grad()
    grads = score(x, 0.5).backward()
    return x.grad(grads)


def main():
    values = [0.1, -0.4, 0.9]
    with DeviceSession() as dev:
        g = probe(dev, values)
        print("grad norm", (g * g).sum().sqrt().item())

    trace_session = DeviceSession(spec="autodiff:capture")
    with trace_session as dev:  # expect: DL004
        x = dispatch.placeholder((3,), device=dev, name="x")
        program = dispatch.export(score(x, 0.5))
    return program


if __name__ == "__main__":
    main()
