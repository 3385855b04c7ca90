"""The kernel seam: which kernel table runs the operations of a real device.

``kernels_for(device)`` returns the NumPy kernels for ``NumPy()`` and the Numba kernels for
``Numba()`` when ``backends/numba.py`` imports (it needs a working Numba); otherwise Numba
devices run the NumPy kernels, which compute the same results.
"""

from __future__ import annotations

from typing import Any

from dispatch_lint.runtime.backends.numpy import KERNELS as NUMPY_KERNELS

__all__ = ["NUMPY_KERNELS", "kernels_for", "numba_backend"]

_numba_module: Any = None
_numba_tried = False


def numba_backend() -> Any:
    """The ``backends.numba`` module, or None when it cannot be imported."""
    global _numba_module, _numba_tried
    if not _numba_tried:
        _numba_tried = True
        try:
            from dispatch_lint.runtime.backends import numba as module
        except ImportError:
            module = None
        _numba_module = module
    return _numba_module


def kernels_for(device: Any) -> Any:
    """The kernel table of a real, plain device (``NumPy()`` or ``Numba()``)."""
    if getattr(device, "kind", None) == "numba":
        module = numba_backend()
        table = getattr(module, "KERNELS", None) if module is not None else None
        if table is not None:
            return table
    return NUMPY_KERNELS
