"""Export a fused activation chain and run it on Numba, falling back to NumPy when it cannot."""
import logging

import numpy as np

from dispatch_lint import runtime as dispatch

log = logging.getLogger(__name__)


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((8,), device=cap, name="x")
    out = ((x * 1.5 + 0.25).tanh() * x).sigmoid()
    log.info("exporting %s", out)
    program = dispatch.export(out)
    feed = {"x": np.linspace(-1, 1, 8, dtype=np.float32)}
    result = None
    try:
        result = program.run(feed, device=dispatch.Numba())
    except (ImportError, RuntimeError) as exc:
        log.warning("numba unavailable (%s), falling back", type(exc).__name__)
        result = program.run(feed)
    finally:
        log.info("program %r ran: %s", program, result is not None)
    total = result.sum()
    print(f"checksum {total:.5f}, first {result.tolist()[0]:.3f}")
    return total.item()


if __name__ == "__main__":
    main()
