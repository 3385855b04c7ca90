"""format() with a spec chosen at run time reads the tensor's data."""

from dispatch_lint import runtime as dispatch


def render(value, precision):
    spec = f".{precision}f"
    return format(value, spec)


def main() -> None:
    cap = dispatch.Capture()
    loss = (dispatch.placeholder((2,), device=cap, name="x") ** 2).sum()
    print(render(loss, 3))  # expect: DL003


if __name__ == "__main__":
    main()
