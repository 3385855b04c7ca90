"""Guard modes and the training flag: context-local state read by every guarded operation.

Both live in ``contextvars`` so that threads and async tasks never see each other's mode.
The public switches are re-exported by ``dispatch_lint.runtime.guards``.
"""

from __future__ import annotations

import contextvars
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from dispatch_lint.runtime.errors import user_frame_depth

__all__ = ["ENV_VAR", "MODES", "get_mode", "in_training", "mode", "set_mode"]

#: ``raise``: every rule raises with its origin; ``strict``: warnings (DL004) raise too;
#: ``off``: no origins recorded, early checks skipped (invariants with no data still raise).
MODES = ("raise", "strict", "off")
ENV_VAR = "DISPATCH_LINT_GUARDS"


def _mode_from_environment() -> str:
    value = os.environ.get(ENV_VAR, "").strip().lower()
    if not value:
        return "raise"
    if value not in MODES:
        # A typo in an environment variable must not stop training code from importing; fall
        # back to the default, which keeps every check on, and say so.
        # The warning points at the user's import of the runtime, not at this module.
        warnings.warn(
            f"{ENV_VAR}={value!r} is not a guard mode (expected one of {', '.join(MODES)}); "
            "using 'raise'",
            RuntimeWarning,
            stacklevel=user_frame_depth(),
        )
        return "raise"
    return value


_DEFAULT_MODE = _mode_from_environment()
_mode: contextvars.ContextVar[str] = contextvars.ContextVar(
    "dispatch_lint_guard_mode", default=_DEFAULT_MODE
)
_training: contextvars.ContextVar[int] = contextvars.ContextVar(
    "dispatch_lint_training_depth", default=0
)


def _check_mode(value: str) -> str:
    if value not in MODES:
        raise ValueError(
            f"unknown guard mode {value!r}; expected one of: {', '.join(MODES)}"
        )
    return value


def get_mode() -> str:
    """The guard mode of the current context: ``raise``, ``strict`` or ``off``."""
    return _mode.get()


def set_mode(value: str) -> None:
    """Set the guard mode for the current context (thread or task) from here on."""
    _mode.set(_check_mode(value))


@contextmanager
def mode(value: str) -> Iterator[str]:
    """Run a block in guard mode ``value``; the previous mode comes back afterwards."""
    token = _mode.set(_check_mode(value))
    try:
        yield value
    finally:
        _mode.reset(token)


def in_training() -> bool:
    """True inside ``guards.training()`` (and guard mode is not ``off``)."""
    return _training.get() > 0 and _mode.get() != "off"


@contextmanager
def training_block() -> Iterator[None]:
    """Mark the block as training code (see ``guards.training``)."""
    token = _training.set(_training.get() + 1)
    try:
        yield
    finally:
        _training.reset(token)
