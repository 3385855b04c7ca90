"""The trip log: with ``DISPATCH_LINT_TRIPS=FILE`` set, every rule a run saw broken appends one
JSON line to ``FILE``, which ``dispatch-lint --trips FILE`` merges into its report.

Two kinds of trips are written here:

- the runtime's own guard errors (:mod:`dispatch_lint.runtime.errors` calls :func:`append`);
- JAX's tracer errors (``ConcretizationTypeError`` and its kin, ``UnexpectedTracerError``, and
  the ``TypeError`` / ``IndexError`` JAX raises for traced shapes, format specs and slice
  bounds), mapped to DL003 / DL009 at the user's line: the pytest plugin records those that
  fail a test, and :func:`install_exception_hooks` (installed when the runtime is imported with
  the variable set) those that end a script or a thread.

JAX is never imported here: an exception can only be JAX's if ``jax`` is in ``sys.modules``.
"""

from __future__ import annotations

import itertools
import json
import linecache
import os
import re
import sys
import threading
from collections.abc import Iterator
from types import CodeType, TracebackType
from typing import Any

__all__ = [
    "TRIPS_ENV",
    "append",
    "columns",
    "enabled",
    "install_exception_hooks",
    "jax_trip",
    "record_jax_error",
]

TRIPS_ENV = "DISPATCH_LINT_TRIPS"

#: JAX's tracer errors (``jax.errors``), by class name, and the rule each breaks.
_JAX_ERRORS = {
    "ConcretizationTypeError": "DL003",
    "TracerBoolConversionError": "DL003",
    "TracerArrayConversionError": "DL003",
    "TracerIntegerConversionError": "DL003",
    "UnexpectedTracerError": "DL009",
}
#: Plain errors that JAX raises for a tracer, told apart by JAX's own wording.
_JAX_PLAIN_ERRORS = {
    TypeError: re.compile(
        r"Shapes must be 1D sequences of concrete values of integer type"
        r"|unsupported format string passed to \w*Tracer\.__format__"
    ),
    IndexError: re.compile(r"Slice entries must be static integers"),
}
#: Where JAX says which traced function the value came from ("... for jit.").
_TRACED_FUNCTION = re.compile(
    r"(?:tracing the function|The function being traced when the value leaked was)"
    r" \S+ at (.+?):(\d+)"
)
#: Where JAX says a leaked value was created ("... created on line FILE:LINE:COL (f).").
_LEAK_CREATED = re.compile(r"The leaked intermediate value was created on line (.+?):(\d+)(?::\d+)?")
#: Frames of these packages raise or convert; the user's line is the innermost frame outside.
_MACHINERY = frozenset({"jax", "jaxlib", "numpy", "ml_dtypes", "opt_einsum", "dispatch_lint"})
#: How far down ``__cause__`` / ``__context__`` a JAX error is looked for.
_CHAIN_DEPTH = 8


def enabled() -> bool:
    """Whether a trip log is asked for (``DISPATCH_LINT_TRIPS`` names a file)."""
    return bool(os.environ.get(TRIPS_ENV))


def append(entry: dict[str, Any]) -> None:
    """Append ``entry`` as one JSON line to the trips file, when one is configured."""
    path = os.environ.get(TRIPS_ENV)
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")
    except OSError:
        # The trip log is a diagnostic aid; failing to write it must not mask the real error.
        pass


def columns(code: CodeType, lasti: int, line: int) -> dict[str, int]:
    """Where on ``line`` the instruction at byte offset ``lasti`` of ``code`` is: the
    expression it runs (``column``, ``end_line``, ``end_column``: 1-based, in characters,
    the end exclusive). Empty when Python does not say (before 3.11)."""
    positions = getattr(code, "co_positions", None)
    if positions is None or lasti < 0:
        return {}
    # One position per 2-byte code unit; lasti is the byte offset of the instruction.
    here = next(itertools.islice(positions(), lasti // 2, None), None)
    if here is None or None in here or here[0] != line:
        return {}
    start, end_line, column, end_column = here
    file = code.co_filename
    return {
        "column": _characters(file, start, column) + 1,
        "end_line": end_line,
        "end_column": _characters(file, end_line, end_column) + 1,
    }


def _characters(file: str, line: int, byte_offset: int) -> int:
    """A UTF-8 byte offset into ``line`` of ``file`` as a count of characters."""
    text = linecache.getline(file, line)
    return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))


def jax_trip(exc: BaseException) -> dict[str, Any] | None:
    """The trip record for the JAX tracer error that is ``exc`` or caused it, or None.

    DL003 sits at the innermost user frame of the traceback (where the tracer met the
    sink), with the traced function as its origin. DL009 sits where JAX says the leaked value
    was created (inside the trace, beside the store the static rule reports), falling back to
    the frame that used it."""
    if "jax" not in sys.modules:
        return None
    for error in _chain(exc):
        rule = _rule_of(error)
        if rule is None:
            continue
        message = str(error)
        used = _user_frame(error.__traceback__)
        place = (used.tb_frame.f_code.co_filename, used.tb_lineno) if used else None
        where = columns(used.tb_frame.f_code, used.tb_lasti, used.tb_lineno) if used else {}
        if rule == "DL009":
            created = _LEAK_CREATED.search(message)
            if created:
                place = (created.group(1), int(created.group(2)))
                where = {}
        if place is None:
            return None
        traced = _TRACED_FUNCTION.search(message)
        origin = {"file": traced.group(1), "line": int(traced.group(2))} if traced else None
        return {
            "rule": rule,
            "file": place[0],
            "line": place[1],
            **where,
            "origin": origin,
            "framework": "jax",
            "error": type(error).__name__,
        }
    return None


def record_jax_error(exc: BaseException) -> bool:
    """Append the trip of ``exc`` if it is (or was caused by) a JAX tracer error."""
    if not enabled():
        return False
    trip = jax_trip(exc)
    if trip is None:
        return False
    append(trip)
    return True


def install_exception_hooks() -> None:
    """Record the JAX tracer error that ends the program (``sys.excepthook``) or a thread
    (``threading.excepthook``), then hand the error to the hook that was there before."""
    if getattr(sys.excepthook, "_dispatch_lint_trips", False):
        return
    previous_sys = sys.excepthook
    previous_thread = threading.excepthook

    def sys_hook(
        kind: type[BaseException], value: BaseException, tb: TracebackType | None
    ) -> None:
        record_jax_error(value)
        previous_sys(kind, value, tb)

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None:
            record_jax_error(args.exc_value)
        previous_thread(args)

    sys_hook._dispatch_lint_trips = True  # type: ignore[attr-defined]
    sys.excepthook = sys_hook
    threading.excepthook = thread_hook


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < _CHAIN_DEPTH:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _rule_of(error: BaseException) -> str | None:
    for kind in type(error).__mro__:
        if kind.__module__.startswith("jax") and kind.__name__ in _JAX_ERRORS:
            return _JAX_ERRORS[kind.__name__]
    wording = _JAX_PLAIN_ERRORS.get(type(error))
    if wording is not None and wording.search(str(error)):
        return "DL003"
    return None


def _user_frame(tb: TracebackType | None) -> TracebackType | None:
    """The innermost entry of ``tb`` whose frame belongs to neither JAX, NumPy, this package
    nor the standard library."""
    found = None
    while tb is not None:
        frame = tb.tb_frame
        module = str(frame.f_globals.get("__name__", "")).partition(".")[0]
        filename = frame.f_code.co_filename
        if not (
            module in _MACHINERY
            or module in sys.stdlib_module_names
            or filename.startswith("<")
        ):
            found = tb
        tb = tb.tb_next
    return found
