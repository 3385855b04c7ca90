"""Devices: where a tensor lives and which kernels run its operations.

``NumPy()`` and ``Numba()`` are plain real devices (value objects: every ``NumPy()`` is equal
to every other). Every ``Capture()`` is a fresh recording graph, equal only to itself, named
by where it was made. ``Autodiff(inner)`` tracks gradients over a plain device.
"""

from __future__ import annotations

import itertools
import os
import warnings
from typing import TYPE_CHECKING, Any

from dispatch_lint.runtime import modes
from dispatch_lint.runtime.backends import kernels_for
from dispatch_lint.runtime.capture import Graph
from dispatch_lint.runtime.errors import (
    CaptureAutodiffWarning,
    NestedAutodiffError,
    Origin,
    user_frame_depth,
    user_origin,
)

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.runtime.tensor import Tensor

__all__ = [
    "DEVICE_STRINGS",
    "Autodiff",
    "Capture",
    "Device",
    "NumPy",
    "Numba",
    "device",
]

#: The strings every ``device=`` argument accepts.
DEVICE_STRINGS = (
    "numpy",
    "numba",
    "capture",
    "autodiff:numpy",
    "autodiff:numba",
    "autodiff:capture",
)


class Device:
    """Base class of every device.

    ``kind`` is ``"numpy"``, ``"numba"``, ``"capture"`` or ``"autodiff"``. Internally a device
    also knows its kernel table (real plain devices only), the capture device it records into
    (capture devices and autodiff over one) and its plain base device.
    """

    kind: str = ""
    is_capture: bool = False
    is_autodiff: bool = False
    #: Kernel table of a real plain device; None means "not the eager fast path".
    _kernels: Any = None
    #: Kernel table that computes this device's real ops (an autodiff device's inner one).
    _compute: Any = None
    #: The capture device whose graph this device records into, or None.
    _capture: Capture | None = None

    @property
    def _base(self) -> Device:
        return self


class _RealDevice(Device):
    """A plain real device with one instance per class: the eager hot path compares devices
    with ``is``, and every ``NumPy()`` must be that one instance."""

    _instance: _RealDevice | None = None

    def __new__(cls) -> Any:
        instance = cls.__dict__.get("_instance")
        if instance is None:
            instance = super().__new__(cls)
            instance._kernels = instance._compute = kernels_for(instance)
            cls._instance = instance
        return instance

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), ())


class NumPy(_RealDevice):
    """The default device: tensors are NumPy arrays, ops run NumPy kernels."""

    kind = "numpy"


class Numba(_RealDevice):
    """A real device whose kernels are compiled with Numba (NumPy kernels if Numba is missing).

    A device of its own, so that mixing it with ``NumPy()`` tensors is DL008.
    """

    kind = "numba"


_capture_ids = itertools.count(1)


class Capture(Device):
    """A capture device: tensors on it are placeholders recorded into its own graph.

    Every ``Capture()`` is a new device, equal only to itself; its repr names where it was made.
    """

    kind = "capture"
    is_capture = True

    def __init__(self) -> None:
        self.id = next(_capture_ids)
        self.origin: Origin | None = (
            user_origin() if modes.get_mode() != "off" else None
        )
        self.graph = Graph()
        self._capture = self

    def __repr__(self) -> str:
        if self.origin is None:
            return f"Capture#{self.id}"
        return f"Capture@{os.path.basename(self.origin.file)}:{self.origin.line}"

    # Identity equality and hashing (object's) are what "a fresh device each time" means.


class Autodiff(Device):
    """Reverse-mode autodiff over a plain device: ``Autodiff(NumPy())``.

    Over a capture device it is DL004 (a warning, an error in strict mode): capture tensors
    cannot be differentiated. Over an autodiff device it is DL005.
    """

    kind = "autodiff"
    is_autodiff = True

    def __init__(self, inner: Device | str) -> None:
        inner = device(inner)
        if inner.is_autodiff:
            raise NestedAutodiffError(
                f"Autodiff({inner!r}) wraps a device that already tracks gradients"
            )
        self.inner = inner
        self.is_capture = inner.is_capture
        self._capture = inner._capture
        self._compute = inner._kernels
        if inner.is_capture:
            _warn_autodiff_over_capture(inner)

    @property
    def _base(self) -> Device:
        return self.inner

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Autodiff) and other.inner == self.inner

    def __hash__(self) -> int:
        return hash(("autodiff", self.inner))

    def __repr__(self) -> str:
        return f"Autodiff({self.inner!r})"

    def wrap(self, tensor: Tensor) -> Tensor:
        """Lift a tensor on the inner device to this autodiff device (not tracked yet)."""
        from dispatch_lint.runtime.tensor import lift

        return lift(tensor, self)

    def from_inner(self, tensor: Tensor) -> Tensor:
        """Same as ``wrap``: the name burn uses."""
        from dispatch_lint.runtime.tensor import lift

        return lift(tensor, self)


def _warn_autodiff_over_capture(inner: Device) -> None:
    mode = modes.get_mode()
    if mode == "off":
        return
    error = CaptureAutodiffWarning(
        f"Autodiff({inner!r}) was built over a capture device; its tensors record a graph "
        "but can never be differentiated",
        inner.origin if isinstance(inner, Capture) else None,
    )
    if mode == "strict":
        raise error
    warnings.warn(error, stacklevel=user_frame_depth())


def device(spec: Device | str) -> Device:
    """A device from a device or one of ``DEVICE_STRINGS``.

    ``"capture"`` makes a fresh capture device each time, like ``Capture()``;
    ``"autodiff:capture"`` is DL004 on the line where the string becomes a device.
    """
    if isinstance(spec, Device):
        return spec
    if not isinstance(spec, str):
        raise TypeError(
            f"device must be a Device or one of {', '.join(map(repr, DEVICE_STRINGS))}; "
            f"got {type(spec).__name__} {spec!r}"
        )
    name = spec.strip().lower()
    if name == "numpy":
        return NumPy()
    if name == "numba":
        return Numba()
    if name == "capture":
        return Capture()
    if name.startswith("autodiff:") and name[len("autodiff:") :] in (
        "numpy",
        "numba",
        "capture",
    ):
        return Autodiff(device(name[len("autodiff:") :]))
    raise ValueError(
        f"unknown device {spec!r}; expected one of {', '.join(map(repr, DEVICE_STRINGS))}"
    )
