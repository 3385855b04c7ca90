"""Code after a raise never runs: the capture tensor there is never differentiated."""

from dispatch_lint import runtime as dispatch


def check(mode):
    if mode != "train":
        raise ValueError(f"cannot train in mode {mode}")
        dispatch.placeholder((2,), name="never").backward()
    return mode


def main() -> None:
    check("train")
    try:
        check("export")
    except ValueError as error:
        print(error)


if __name__ == "__main__":
    main()
