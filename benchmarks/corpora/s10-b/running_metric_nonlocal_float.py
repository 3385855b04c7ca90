"""Tracks the latest and best validation loss in closures and logs them after each epoch."""
from dispatch_lint import runtime as dispatch


def make_tracker():
    last = None
    best = float("inf")

    def record(loss):
        nonlocal last
        last = loss

    def commit():
        nonlocal best
        value = float(last)  # expect: DL003
        best = min(best, value)
        return value, best

    return record, commit


def evaluate(w, x, y):
    return ((x @ w - y) ** 2.0).mean()


def main():
    record, commit = make_tracker()
    w = dispatch.rand((3,), seed=2)
    x = dispatch.rand((6, 3), seed=3)
    y = dispatch.zeros((6,))
    for epoch in range(2):
        record(evaluate(w, x, y))
        print("epoch", epoch, commit())
        w = w * 0.5
    cap = dispatch.Capture()
    xp = dispatch.placeholder((6, 3), device=cap, name="x")
    yp = dispatch.placeholder((6,), device=cap, name="y")
    record(evaluate(w.to_device(cap), xp, yp))
    program = dispatch.export(evaluate(w.to_device(cap), xp, yp))
    print("final", commit())
    return program


if __name__ == "__main__":
    main()
