"""Runtime trips fed back into the lint report (``dispatch-lint --trips FILE``).

With ``DISPATCH_LINT_TRIPS=FILE`` set, every runtime guard that fires appends one JSON line
``{"rule", "file", "line", "origin"}`` naming the user's line that broke the rule. A static
finding at the same file, line and rule is confirmed by the run; a trip no static finding
matches is reported as a finding of its rule that only the run saw.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from dispatch_lint.analyzer.diagnostics import Diagnostic, TraceStep
from dispatch_lint.catalog import RULES_BY_ID

__all__ = ["Trip", "TripsError", "read_trips", "merge_trips", "CONFIRMED", "RUNTIME_ONLY"]

#: The trace step added to a static finding that a run confirmed.
CONFIRMED = "confirmed at run time"
#: The trace step of a finding only the run saw.
RUNTIME_ONLY = "seen only at run time: the static analysis missed this path"


class TripsError(Exception):
    """The trips file cannot be read; ``str()`` is one line for users."""


@dataclass(frozen=True)
class Trip:
    """One guard that fired at run time: ``rule`` at ``file``:``line`` (an absolute or
    working-folder-relative path), for a capture tensor born at ``origin`` (text, if known)."""

    rule: str
    file: str
    line: int
    origin: str | None


def _origin_text(origin: object) -> str | None:
    if isinstance(origin, str):
        return origin or None
    if isinstance(origin, Mapping) and "file" in origin:
        line = origin.get("line")
        return f"{origin['file']}:{line}" if line is not None else str(origin["file"])
    return None


def read_trips(path: Path) -> tuple[tuple[Trip, ...], int]:
    """The trips recorded in ``path``, and how many lines were malformed (skipped).

    A run killed mid-write can leave a torn last line: that costs one trip, not the report.
    """
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise TripsError(f"{path}: cannot read the trips file: {exc.strerror or exc}") from None
    trips, malformed = [], 0
    for raw in text.splitlines():
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
            trip = Trip(
                rule=str(record["rule"]),
                file=str(record["file"]),
                line=int(record["line"]),
                origin=_origin_text(record.get("origin")),
            )
        except (ValueError, KeyError, TypeError):
            malformed += 1
            continue
        if trip.rule in RULES_BY_ID and trip.line >= 1:
            trips.append(trip)
        else:
            malformed += 1
    return tuple(trips), malformed


def merge_trips(
    diagnostics: Sequence[Diagnostic],
    trips: Sequence[Trip],
    checked: Mapping[str, str],
    enabled: frozenset[str],
) -> tuple[Diagnostic, ...]:
    """``diagnostics`` with the run's evidence merged in.

    ``checked`` maps the real path of every checked file to its path as shown; trips in other
    files (libraries, unchecked tests) and of rules not enabled are left out.
    """
    by_place: dict[tuple[str, int, str], list[Trip]] = {}
    for trip in trips:
        shown = checked.get(os.path.realpath(trip.file))
        if shown is not None and trip.rule in enabled:
            by_place.setdefault((shown, trip.line, trip.rule), []).append(trip)

    merged = []
    for diagnostic in diagnostics:
        place = (diagnostic.path, diagnostic.line, diagnostic.rule)
        if by_place.pop(place, None) is not None:
            step = TraceStep(diagnostic.path, diagnostic.line, diagnostic.column, CONFIRMED)
            diagnostic = replace(diagnostic, trace=diagnostic.trace + (step,))
        merged.append(diagnostic)

    for (shown, line, rule_id), seen in by_place.items():
        spec = RULES_BY_ID[rule_id]
        steps = []
        origin = next((t.origin for t in seen if t.origin), None)
        if origin is not None:
            steps.append(TraceStep(shown, line, 1, f"the capture tensor was created at {origin}"))
        steps.append(TraceStep(shown, line, 1, RUNTIME_ONLY))
        merged.append(
            Diagnostic(
                path=shown,
                line=line,
                column=1,
                rule=spec.id,
                name=spec.name,
                severity=spec.severity,
                message=f"{spec.message} (raised at run time: {spec.runtime_error})",
                end_line=line,
                end_column=1,
                trace=tuple(steps),
            )
        )
    return tuple(sorted(merged))
