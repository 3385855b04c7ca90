"""Trace a two-branch residual block and keep both branches on the capture device for export."""
from dispatch_lint import runtime as dispatch


def branch(x, weight):
    return (x @ weight.to_device(x.device)).relu()


def residual(x, w_a, w_b, target):
    left = branch(x, w_a)
    right = branch(x, w_b).to_device(target)
    return left + right


def main():
    w_a = dispatch.rand((4, 4), seed=40)
    w_b = dispatch.rand((4, 4), seed=41)
    eager = residual(dispatch.ones((2, 4)), w_a, w_b, dispatch.NumPy())
    print(f"eager {eager.sum().item():.3f}")

    x = dispatch.placeholder((2, 4), device=dispatch.device("capture"), name="x")
    traced = residual(x, w_a, w_b, dispatch.device("capture"))  # expect: DL002
    program = dispatch.export(traced)
    return program.run({"x": dispatch.ones((2, 4))}).tolist()


if __name__ == "__main__":
    main()
