"""A module device reassigned by a later call: the training before it ran on Autodiff."""

from dispatch_lint import runtime as dispatch

DEVICE = dispatch.Autodiff(dispatch.NumPy())


def switch_to_export():
    global DEVICE
    DEVICE = dispatch.Capture()


def train():
    w = dispatch.ones((2,), device=DEVICE).require_grad()
    return w.grad((w * 3.0).sum().backward())


def export():
    x = dispatch.placeholder((2,), device=DEVICE, name="x")
    return dispatch.export(x * 3.0)


def main() -> None:
    print(train().numpy())
    switch_to_export()
    print(export())


if __name__ == "__main__":
    main()
