"""Time the host copies of an exported encoder's outputs with a labelled decorator."""
import functools
import logging
import time

from dispatch_lint import runtime as dispatch

log = logging.getLogger(__name__)


def timed(label):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                log.debug("%s took %.6fs", label, time.perf_counter() - start)
        return wrapper
    return decorate


@timed("host-copy")
def to_host(t, device="numpy"):
    return t.to_device(device)


def main():
    cap = dispatch.Capture()
    tokens = dispatch.placeholder((2, 4), device=cap, name="tokens")
    w = dispatch.rand((4, 3), seed=0).to_device(cap)
    embedding = (tokens @ w).tanh()
    logits = embedding.sum(axis=1)
    ran_embedding, ran_logits = dispatch.replay(
        (embedding, logits), {"tokens": dispatch.ones((2, 4))}
    )
    cache = {}
    for name, value in (("embedding", ran_embedding), ("logits", logits)):
        cache[name] = to_host(value, device=dispatch.NumPy())  # expect: DL002
    return cache


if __name__ == "__main__":
    main()
