"""The runtime's errors: one class per rule of the catalog, raised the moment a rule is broken.

Every class takes its rule id, name, first sentence and fix from ``dispatch_lint.catalog`` so
that the runtime, the static rules and the docs can never drift apart.
"""

from __future__ import annotations

import linecache
import os
import sys
from types import FrameType
from typing import NamedTuple

from dispatch_lint.catalog import GUARD_FIX, RuleSpec
from dispatch_lint.catalog import rule as catalog_rule
from dispatch_lint.runtime import trips

__all__ = [
    "ERRORS_BY_RULE",
    "AutodiffTransferError",
    "CaptureAutodiffError",
    "CaptureAutodiffWarning",
    "CaptureDataError",
    "CaptureGuardError",
    "CaptureTransferError",
    "DeviceMismatchError",
    "DispatchError",
    "NestedAutodiffError",
    "Origin",
    "RequiresAutodiffError",
]


class Origin(NamedTuple):
    """A place in the user's code: where a capture tensor (or device) was created."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


# Frames inside the package are library plumbing; an origin must point at the user's line.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _is_internal(filename: str) -> bool:
    return filename.startswith((_PACKAGE_DIR, "<frozen "))


def _is_import_machinery(filename: str) -> bool:
    # The frames ``warnings`` passes over without counting them in a stacklevel.
    return "importlib" in filename and "_bootstrap" in filename


def user_frame_depth() -> int:
    """How many frames above the caller the first frame outside ``dispatch_lint/`` is,
    counted as ``warnings.warn`` counts a ``stacklevel`` (the import system's frames, between
    a module being imported and the code importing it, do not count).

    Used as ``stacklevel`` for warnings so that they point at the user's line.
    """
    frame = sys._getframe(1)
    depth = 1
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
        if frame is not None and not _is_import_machinery(frame.f_code.co_filename):
            depth += 1
    return depth


def _user_frame(frame: FrameType | None) -> FrameType | None:
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def user_origin() -> Origin | None:
    """The innermost frame of the current call stack that is not inside ``dispatch_lint/``."""
    frame = _user_frame(sys._getframe(1))
    if frame is None:
        return None
    return Origin(frame.f_code.co_filename, frame.f_lineno)


class DispatchError(RuntimeError):
    """Base class of every runtime guard error.

    ``rule`` and ``rule_name`` identify the catalog rule; ``origin`` is where the capture
    tensor involved (or the capture tensor it was computed from) was created in the user's
    code, or None when no capture tensor is involved or origins are not recorded (mode off).
    """

    rule: str = ""
    rule_name: str = ""

    def __init_subclass__(cls, rule: str | None = None, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if rule is not None:
            cls.rule = rule
            cls.rule_name = catalog_rule(rule).name

    def __init__(self, what: str, origin: Origin | None = None) -> None:
        self.origin = origin
        self.what = what
        super().__init__(self._compose(what, origin))

    def __reduce__(self) -> tuple[object, ...]:
        # Rebuilt as is, not re-composed (and not logged as a new trip) when unpickled,
        # e.g. when a worker process sends the error back.
        return (_restore, (type(self), str(self), self.what, self.origin))

    @classmethod
    def spec(cls) -> RuleSpec:
        return catalog_rule(cls.rule)

    @classmethod
    def fix(cls) -> str:
        """What to do about it (the catalog's fix of the rule)."""
        return cls.spec().fix

    def _compose(self, what: str, origin: Origin | None) -> str:
        spec = self.spec()
        parts = [f"{spec.message}: {what}."]
        if origin is not None:
            parts.append(f"The {spec.origin} was created at {origin}.")
        parts.append(f"[{spec.id} {spec.name}] Fix: {self.fix()}.")
        message = " ".join(parts)
        _record_trip(spec.id, origin)
        return message


def _restore(
    cls: type[DispatchError], message: str, what: str, origin: Origin | None
) -> DispatchError:
    error = cls.__new__(cls)
    RuntimeError.__init__(error, message)
    error.what = what
    error.origin = origin
    return error


class CaptureAutodiffError(DispatchError, rule="DL001"):
    """DL001: an autodiff call (backward, require_grad, grad, inner) on a capture tensor."""


class CaptureTransferError(DispatchError, rule="DL002"):
    """DL002: a capture tensor moved off its own capture device."""


class CaptureDataError(DispatchError, rule="DL003"):
    """DL003: a capture tensor's data was read (it has none)."""


class CaptureAutodiffWarning(DispatchError, UserWarning, rule="DL004"):
    """DL004: an Autodiff device built over a capture device.

    Warned in guard mode ``raise``; raised in mode ``strict``.
    """


class NestedAutodiffError(DispatchError, rule="DL005"):
    """DL005: Autodiff wrapping an autodiff device."""


class RequiresAutodiffError(DispatchError, rule="DL006"):
    """DL006: an autodiff call on a tensor on a plain (NumPy or Numba) device."""


class AutodiffTransferError(DispatchError, rule="DL007"):
    """DL007: ``.to_device()`` between an autodiff and a non-autodiff device."""


class DeviceMismatchError(DispatchError, rule="DL008"):
    """DL008: a binary operation on tensors that live on different devices."""


class CaptureGuardError(CaptureAutodiffError):
    """A guard (``ensure_not_capture``, ``@no_capture``, ``training()``) saw a capture tensor.

    Rule DL001: guards protect code that trains, and capture tensors cannot be trained.
    It subclasses ``CaptureAutodiffError`` so that handlers for DL001 also catch it. Its fix
    is the guards' (``catalog.GUARD_FIX``): the value must be real where the guard stands.
    """

    @classmethod
    def fix(cls) -> str:
        return GUARD_FIX


#: The error class of each catalog rule, by id.
ERRORS_BY_RULE: dict[str, type[DispatchError]] = {
    cls.rule: cls
    for cls in (
        CaptureAutodiffError,
        CaptureTransferError,
        CaptureDataError,
        CaptureAutodiffWarning,
        NestedAutodiffError,
        RequiresAutodiffError,
        AutodiffTransferError,
        DeviceMismatchError,
    )
}


def _record_trip(rule_id: str, origin: Origin | None) -> None:
    """One line in the trip log (DISPATCH_LINT_TRIPS), at the user's line that broke the rule."""
    if not trips.enabled():
        return
    sink = _user_frame(sys._getframe(1))
    entry: dict[str, object] = {
        "rule": rule_id,
        "file": sink.f_code.co_filename if sink else None,
        "line": sink.f_lineno if sink else None,
    }
    if sink is not None:
        entry.update(_columns(sink))
    if origin is not None:
        entry["origin"] = {"file": origin.file, "line": origin.line}
        column = _first_column(origin.file, origin.line)
        if column is not None:
            entry["origin"]["column"] = column  # type: ignore[index]
    else:
        entry["origin"] = None
    trips.append(entry)


def _columns(frame: FrameType) -> dict[str, int]:
    """Where in its line the user's frame is running: the expression of the instruction
    that called into the runtime (see :func:`trips.columns`)."""
    return trips.columns(frame.f_code, frame.f_lasti, frame.f_lineno)


def _first_column(file: str, line: int) -> int | None:
    """The 1-based column where the code of ``line`` starts (its indentation skipped)."""
    text = linecache.getline(file, line)
    stripped = text.lstrip()
    return len(text) - len(stripped) + 1 if stripped else None
