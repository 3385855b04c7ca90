"""Evaluate a pruned model in eager mode and during export, logging the sparsity it reaches."""
import logging

from dispatch_lint import runtime as dispatch

log = logging.getLogger(__name__)


def prune(weight, threshold):
    keep = weight.abs() > threshold
    return weight * keep


def sparsity(t):
    if dispatch.is_capture(t):
        log.info("sparsity of %r is known only after replay", t)
    zeros = (t == 0.0).sum().item()
    return zeros / t.numpy().size


def main():
    weight = dispatch.rand((6, 6), seed=60) - 0.5
    pruned = prune(weight, 0.2)
    log.info("eager sparsity %.2f", sparsity(pruned))

    cap = dispatch.Capture()
    w = dispatch.placeholder((6, 6), device=cap, name="w")
    traced = prune(w, 0.2)
    ratio = sparsity(traced)  # expect: DL003
    program = dispatch.export(traced)
    return ratio, program


if __name__ == "__main__":
    main()
