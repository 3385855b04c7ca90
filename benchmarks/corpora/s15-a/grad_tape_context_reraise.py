"""Run one training step inside a timing context and hand the updated weights to the host."""
import logging
import time

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import errors

log = logging.getLogger("train")


class GradTape:
    def __init__(self, inner="numpy"):
        self.device = dispatch.Autodiff(inner)
        self.started = None
        self.elapsed = 0.0

    def __enter__(self):
        self.started = time.perf_counter()
        return self.device

    def __exit__(self, exc_type, exc, tb):
        self.elapsed = time.perf_counter() - self.started
        log.info("step took %.4fs (failed=%s)", self.elapsed, exc_type is not None)
        return False


def main():
    x = dispatch.rand((5, 3), seed=7)
    tape = GradTape()
    with tape as dev:
        w = dispatch.rand((3, 1), seed=8, device=dev).require_grad()
        loss = (dev.wrap(x) @ w).relu().mean()
        grads = loss.backward()
        try:
            w_next = w - 0.05 * dev.wrap(w.grad(grads))
            host = w_next.to_device(dispatch.NumPy())  # expect: DL007
        except errors.DispatchError:
            log.exception("could not hand weights to host")
            raise
    return host.numpy()


if __name__ == "__main__":
    main()
