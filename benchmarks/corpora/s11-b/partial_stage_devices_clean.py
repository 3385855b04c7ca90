"""Build per-stage tensor factories with functools.partial and use each for its own stage."""
import functools

from dispatch_lint import runtime as dispatch

STAGES = {"train": "autodiff:numpy", "eval": "numpy"}


def factories(device):
    return {
        "rand": functools.partial(dispatch.rand, device=device),
        "zeros": functools.partial(dispatch.zeros, device=device),
    }


def main():
    train = factories(STAGES["train"])
    w = train["rand"]((3, 1), seed=0).require_grad()
    b = train["zeros"]((1,)).require_grad()
    x = dispatch.rand((8, 3), seed=1)
    y = dispatch.rand((8, 1), seed=2)
    for _ in range(3):
        loss = ((x @ w + b - y) ** 2).mean()
        grads = loss.backward()
        w = (w - 0.1 * w.grad(grads)).require_grad()
        b = (b - 0.1 * b.grad(grads)).require_grad()

    cap = dispatch.Capture()
    slot = functools.partial(dispatch.placeholder, device=cap)
    export = factories(cap)
    x_in = slot((8, 3), name="x")
    bias = export["zeros"]((1,)) + b.inner().to_device(cap)
    program = dispatch.export(x_in @ w.inner().to_device(cap) + bias)
    pred = program.run({"x": x}, device=STAGES["eval"])
    print(loss.item(), pred.numpy().shape)


if __name__ == "__main__":
    main()
