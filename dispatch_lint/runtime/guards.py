"""Guards: stop capture tensors where they must never go, with an explained error.

On whenever the runtime is imported. The mode (``raise`` by default, ``strict``, ``off``) comes
from ``DISPATCH_LINT_GUARDS`` at import, then ``set_mode()`` / ``with mode(...)``; it is
context-local, so threads and async tasks never see each other's mode.

- ``is_capture(t)``: True only for a capture tensor (False for anything that is not a tensor).
- ``ensure_not_capture(t, what=...)``: returns ``t``, or raises ``CaptureGuardError`` (DL001).
- ``@no_capture``: the decorated function raises ``CaptureGuardError`` at the call when an
  argument (or an element of a list, tuple or dict argument) is a capture tensor.
- ``with training():``: no capture tensor may be created or used in an op inside the block.

In mode ``off`` these early checks are skipped; reading data of, differentiating or moving a
capture tensor still raises, because there is nothing behind it to read or move.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from dispatch_lint.runtime.errors import CaptureGuardError
from dispatch_lint.runtime.modes import (
    ENV_VAR,
    MODES,
    get_mode,
    mode,
    set_mode,
    training_block,
)
from dispatch_lint.runtime.tensor import Tensor

__all__ = [
    "ENV_VAR",
    "MODES",
    "ensure_not_capture",
    "get_mode",
    "is_capture",
    "mode",
    "no_capture",
    "set_mode",
    "training",
]

F = TypeVar("F", bound=Callable[..., Any])


def is_capture(t: object) -> bool:
    """True when ``t`` is a capture tensor (a placeholder with no data)."""
    return isinstance(t, Tensor) and t._data is None


def ensure_not_capture(t: Any, what: str = "this value") -> Any:
    """Return ``t``; raise ``CaptureGuardError`` (DL001) if it is a capture tensor."""
    if is_capture(t) and get_mode() != "off":
        raise CaptureGuardError(
            f"{what} is {t._describe()}, and ensure_not_capture() lets only real tensors "
            "through",
            t._origin,
        )
    return t


def _first_capture(value: Any) -> Tensor | None:
    if is_capture(value):
        return value
    if isinstance(value, (list, tuple)):
        items: Any = value
    elif isinstance(value, dict):
        items = value.values()
    else:
        return None
    for item in items:
        if is_capture(item):
            return item
    return None


def no_capture(function: F) -> F:
    """Decorate a function that must never receive capture tensors (a training step...)."""
    try:
        signature: inspect.Signature | None = inspect.signature(function)
    except (TypeError, ValueError):
        signature = None
    label = getattr(function, "__qualname__", repr(function))

    def check(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if get_mode() == "off":
            return
        # The common case (no capture tensor anywhere) must stay cheap: a training step is
        # called in a loop. Names for the message are worked out only on failure.
        if all(_first_capture(v) is None for v in (*args, *kwargs.values())):
            return
        for name, value in _named_arguments(signature, args, kwargs):
            found = _first_capture(value)
            if found is not None:
                _refuse(label, name, found)

    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def async_guarded(*args: Any, **kwargs: Any) -> Any:
            check(args, kwargs)
            return await function(*args, **kwargs)

        return async_guarded  # type: ignore[return-value]

    @functools.wraps(function)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        check(args, kwargs)
        return function(*args, **kwargs)

    return guarded  # type: ignore[return-value]


def _named_arguments(
    signature: inspect.Signature | None, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> list[tuple[str, Any]]:
    """Each argument of a call with the parameter name it binds to (for the error message)."""
    try:
        bound = signature.bind(*args, **kwargs) if signature is not None else None
    except TypeError:
        # The call itself is wrong; name the arguments by position and keyword.
        bound = None
    if bound is None:
        return [(f"argument {i}", a) for i, a in enumerate(args)] + list(kwargs.items())
    named: list[tuple[str, Any]] = []
    for name, value in bound.arguments.items():
        kind = signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            named.extend((f"{name}[{i}]", item) for i, item in enumerate(value))
        elif kind is inspect.Parameter.VAR_KEYWORD:
            named.extend(value.items())
        else:
            named.append((name, value))
    return named


def _refuse(label: str, name: str, t: Tensor) -> None:
    raise CaptureGuardError(
        f"{label}() is marked @no_capture but its parameter {name!r} got {t._describe()}",
        t._origin,
    )


@contextmanager
def training() -> Iterator[None]:
    """A block of training code: creating or using a capture tensor inside raises DL001."""
    with training_block():
        yield
