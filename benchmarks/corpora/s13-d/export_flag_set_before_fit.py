"""Fine-tune a bias vector and export the scorer, with the target device read from a global."""
from dispatch_lint import runtime as dispatch

TARGET = dispatch.NumPy()


def use_export_target():
    global TARGET
    TARGET = dispatch.Capture()


def features(n):
    return dispatch.rand((n, 3), seed=n).to_device(TARGET)


def fine_tune(bias, x, steps=3):
    ad = dispatch.Autodiff(dispatch.NumPy())
    for _ in range(steps):
        b = ad.wrap(bias).require_grad()
        loss = ((ad.wrap(x) + b) ** 2).mean()
        bias = bias - 0.2 * b.grad(loss.backward())
    return bias


def main():
    bias = dispatch.zeros((3,))
    warm = fine_tune(bias, features(6))
    use_export_target()
    batch = features(6)
    tuned = fine_tune(warm, batch)  # expect: DL002
    x = dispatch.placeholder((6, 3), device=TARGET, name="x")
    program = dispatch.export(x + tuned.to_device(TARGET))
    print(program)
    return program


if __name__ == "__main__":
    main()
