"""Process-wide session state: the active device and the current input batch."""

from dispatch_lint import runtime as dispatch

ACTIVE_DEVICE = dispatch.Autodiff(dispatch.NumPy())
SAMPLE = dispatch.rand((4, 3), seed=5)
TRACED_INPUTS = []


def begin_trace(shape, name="features"):
    """Switch the session to capture: later code sees a capture device and a placeholder."""
    global ACTIVE_DEVICE, SAMPLE
    ACTIVE_DEVICE = dispatch.Capture()
    SAMPLE = dispatch.placeholder(shape, device=ACTIVE_DEVICE, name=name)
    TRACED_INPUTS.append(name)
    return ACTIVE_DEVICE
