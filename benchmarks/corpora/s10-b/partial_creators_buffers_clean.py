"""Allocates optimizer buffers through functools.partial creators and traces an inference graph."""
import functools

from dispatch_lint import runtime as dispatch

TRAIN = dispatch.Autodiff(dispatch.NumPy())


def momentum_step(w, g, buf, lr=0.1, beta=0.9):
    buf = beta * buf + g
    return w - lr * buf, buf


def main():
    cap = dispatch.Capture()
    new_input = functools.partial(dispatch.placeholder, device=cap)
    new_buffer = functools.partial(dispatch.zeros, device=dispatch.NumPy())
    new_param = functools.partial(dispatch.rand, seed=3, device=TRAIN)

    w = new_param((3,))
    buf = new_buffer((3,))
    target = dispatch.tensor([1.0, 0.0, -1.0])
    for step in range(4):
        w = w.require_grad()
        loss = ((w - target) ** 2.0).sum()
        g = w.grad(loss.backward())
        w, buf = momentum_step(w.inner(), g, buf)
        w = TRAIN.wrap(w)
        print(f"step {step}: loss={loss.item():.4f}")

    x = new_input((3,), name="x")
    served = dispatch.relu(x * w.inner().to_device(cap))
    program = dispatch.export(served)
    return program.run({"x": [1.0, 2.0, 3.0]}).tolist()


if __name__ == "__main__":
    main()
