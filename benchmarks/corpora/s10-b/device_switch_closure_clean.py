"""Builds tensors through closures that share a switchable device: trace first, then train."""
from dispatch_lint import runtime as dispatch


def make_factory(initial):
    current = initial

    def use(device):
        nonlocal current
        current = device

    def make(shape, seed):
        return dispatch.rand(shape, seed=seed, device=current)

    return use, make


def loss_fn(w, x):
    return (dispatch.sigmoid(x @ w) - 0.5).abs().mean()


def main():
    cap = dispatch.Capture()
    use, make = make_factory(cap)
    traced = loss_fn(make((4, 1), 0), dispatch.placeholder((2, 4), device=cap, name="x"))
    program = dispatch.export(traced)

    use(dispatch.Autodiff(dispatch.NumPy()))
    w = make((4, 1), 0).require_grad()
    x = make((2, 4), 1)
    for _ in range(3):
        loss = loss_fn(w, x)
        step = w.grad(loss.backward())
        w = dispatch.Autodiff(dispatch.NumPy()).wrap(w.inner() - 0.2 * step).require_grad()
    return program, loss.item()


if __name__ == "__main__":
    main()
