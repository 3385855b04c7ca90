"""A closure keeps the best loss through nonlocal; the last call stores a capture tensor and the
report reads it."""

from dispatch_lint import runtime as dispatch


def tracker():
    best = None

    def update(loss):
        nonlocal best
        best = loss

    def report():
        return float(best.item())  # expect: DL003

    return update, report


def main() -> None:
    update, report = tracker()
    update(dispatch.ones((1,)).sum())
    update(dispatch.placeholder((1,), name="loss").sum())
    print(report())


if __name__ == "__main__":
    main()
