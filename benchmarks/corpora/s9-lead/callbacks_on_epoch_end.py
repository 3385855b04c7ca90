"""Callbacks run at the end of an epoch; one of them prints the loss's value."""

from dispatch_lint import runtime as dispatch


def log_shape(loss):
    print("shape", loss.shape)


def log_value(loss):
    print("value", loss.item())


CALLBACKS = [log_shape, log_value]


def run_epoch(loss):
    for callback in CALLBACKS:
        callback(loss)


def main() -> None:
    cap = dispatch.Capture()
    x = dispatch.placeholder((4,), device=cap, name="x")
    run_epoch((x * x).sum())  # expect: DL003


if __name__ == "__main__":
    main()
