"""A handler for other errors does not make the numpy() call in the try safe."""

from dispatch_lint import runtime as dispatch


def to_host(t):
    try:
        return t.numpy()
    except (ValueError, TypeError):
        return None


def main() -> None:
    print(to_host(dispatch.placeholder((2,), name="x")))  # expect: DL003


if __name__ == "__main__":
    main()
