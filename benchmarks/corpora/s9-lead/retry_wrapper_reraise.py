"""A retry helper that logs and re-raises: the backward inside the try still raises."""

import functools
import logging

from dispatch_lint import runtime as dispatch

log = logging.getLogger(__name__)


def retried(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except RuntimeError:
            log.exception("step failed")
            raise
    return wrapper


@retried
def update(pred):
    return (pred * 2.0).sum().backward()


def main() -> None:
    cap = dispatch.Capture()
    update(dispatch.placeholder((3,), device=cap, name="pred"))  # expect: DL001


if __name__ == "__main__":
    main()
