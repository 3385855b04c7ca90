"""Sum the loss terms with functools.reduce, adding a penalty computed by an exported program."""
import functools

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def mse(w, x, y):
    return ((x @ w - y) ** 2).mean()


def l2(w, scale):
    return (w * w).sum() * scale


def main():
    x = dispatch.rand((16, 3), seed=1)
    y = dispatch.rand((16, 1), seed=2)
    w = dispatch.rand((3, 1), seed=0, device=AD).require_grad()

    cap = dispatch.Capture()
    w_slot = dispatch.placeholder((3, 1), device=cap, name="w")
    penalty_program = dispatch.export(l2(w_slot, 1e-3))

    for _ in range(3):
        penalty = penalty_program.run({"w": w.inner()}, device=AD)
        terms = [mse(w, x, y), l2(w, 1e-3), penalty]
        total = functools.reduce(lambda a, b: a + b, terms, 0.0)
        grads = total.backward()
        w = (w - 0.1 * w.grad(grads)).require_grad()
    print("loss", total.item())


if __name__ == "__main__":
    main()
