"""The dispatch tensor runtime: NumPy and Numba backends, Autodiff, Capture, with guards.

    from dispatch_lint import runtime as dispatch

    x = dispatch.tensor([1.0, 2.0], device=dispatch.Autodiff(dispatch.NumPy())).require_grad()
    grads = (x * x).sum().backward()
    x.grad(grads)                                   # tensor([2., 4.])

    p = dispatch.placeholder((2,), name="x")        # a capture tensor on a fresh Capture()
    program = dispatch.export((p * p).sum())
    program.run({"x": [1.0, 2.0]})                  # tensor(5.)
    (p * p).sum().backward()                        # CaptureAutodiffError (DL001)

Importing this package never imports the linter (libcst, rich): it is meant for training code.
"""

# No ``from __future__ import annotations`` here: it would bind ``annotations`` in the
# package, and ``dir(dispatch)`` would list it beside the API.
from dispatch_lint.runtime import errors, guards, trips
from dispatch_lint.runtime.autodiff import Gradients
from dispatch_lint.runtime.capture import Program, export, replay
from dispatch_lint.runtime.devices import (
    Autodiff,
    Capture,
    Device,
    Numba,
    NumPy,
    device,
)
from dispatch_lint.runtime.guards import is_capture
from dispatch_lint.runtime.tensor import (
    Tensor,
    abs,
    arange,
    exp,
    from_numpy,
    full,
    log,
    matmul,
    max,
    mean,
    ones,
    placeholder,
    rand,
    relu,
    reshape,
    sigmoid,
    sqrt,
    sum,
    tanh,
    tensor,
    transpose,
    zeros,
)

# With a trip log asked for, the JAX tracer error that ends a script or a thread is logged too.
if trips.enabled():
    trips.install_exception_hooks()

__all__ = [
    "Autodiff",
    "Capture",
    "Device",
    "Gradients",
    "NumPy",
    "Numba",
    "Program",
    "Tensor",
    "abs",
    "arange",
    "device",
    "errors",
    "exp",
    "export",
    "from_numpy",
    "full",
    "guards",
    "is_capture",
    "log",
    "matmul",
    "max",
    "mean",
    "ones",
    "placeholder",
    "rand",
    "relu",
    "replay",
    "reshape",
    "sigmoid",
    "sqrt",
    "sum",
    "tanh",
    "tensor",
    "transpose",
    "zeros",
]
