"""Summarize an exported program: symbolic outputs by repr, replayed outputs with a number format."""
import numpy as np

from dispatch_lint import runtime as dispatch


def describe(name, t, spec=".3f"):
    if dispatch.is_capture(t):
        spec = ""
    return f"{name}: {format(t, spec)}"


def banner(t, width=70):
    return f"{t!r:>{width}}"


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((4,), device=cap, name="x")
    energy = (x * x).sum()
    print(describe("energy (symbolic)", energy))
    print(banner(energy))
    replayed = dispatch.replay(energy, {"x": np.arange(4, dtype=np.float32)})
    print(describe("energy (replayed)", replayed))
    print(f"{replayed:{'>12.2e'}} / {str(energy)[:30]}")


if __name__ == "__main__":
    main()
