"""Sorting tensors by their norm reads each one's data; one of them is a capture tensor."""

from dispatch_lint import runtime as dispatch


def largest(tensors):
    return sorted(tensors, key=lambda t: float((t * t).sum().item()))[-1]


def main() -> None:
    cap = dispatch.Capture()
    tensors = [dispatch.ones((2,)), dispatch.placeholder((2,), device=cap, name="p")]
    print(largest(tensors))  # expect: DL003


if __name__ == "__main__":
    main()
