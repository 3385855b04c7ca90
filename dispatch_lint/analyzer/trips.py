"""Runtime trips fed back into the lint report (``dispatch-lint --trips FILE``).

With ``DISPATCH_LINT_TRIPS=FILE`` set, every runtime guard that fires appends one JSON line
``{"rule", "file", "line", "origin"}`` naming the user's line that broke the rule; JAX's tracer
errors add ``"framework": "jax"`` and ``"error"``, JAX's class name
(:mod:`dispatch_lint.runtime.trips` writes them). A static finding at the same file, line and
rule is confirmed by the run; a trip no static finding matches is reported as a finding of its
rule that only the run saw.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from dispatch_lint.analyzer.diagnostics import Diagnostic, TraceStep
from dispatch_lint.catalog import RULES_BY_ID
from dispatch_lint.frameworks import NAMES, get_model

__all__ = [
    "CONFIRMED",
    "RUNTIME_ONLY",
    "Trip",
    "TripsError",
    "merge_trips",
    "read_trips",
]

#: The trace step added to a static finding that a run confirmed.
CONFIRMED = "confirmed at run time"
#: The trace step of a finding only the run saw.
RUNTIME_ONLY = "seen only at run time: the static analysis missed this path"


class TripsError(Exception):
    """The trips file cannot be read; ``str()`` is one line for users."""


@dataclass(frozen=True)
class Trip:
    """One guard that fired at run time: ``rule`` at ``file``:``line`` (an absolute or
    working-folder-relative path), for a capture tensor born at ``origin_file``:``origin_line``
    when the runtime knew it. A JAX trip has ``framework`` "jax", the name of the ``error``
    JAX raised, and as its origin the function JAX was tracing."""

    rule: str
    file: str
    line: int
    origin_file: str | None = None
    origin_line: int | None = None
    framework: str = "dispatch"
    error: str | None = None

    @property
    def born(self) -> str:
        """What the origin is, in the words of a trace step."""
        if self.framework == "jax":
            return "the function JAX was tracing"
        return "the capture tensor was created"


def _origin(origin: object) -> tuple[str | None, int | None]:
    """The runtime writes ``{"file", "line"}``; a ``"file:line"`` string is accepted too."""
    if isinstance(origin, Mapping) and origin.get("file"):
        line = origin.get("line")
        return str(origin["file"]), line if isinstance(
            line, int
        ) and line >= 1 else None
    if isinstance(origin, str) and origin:
        file, _, line = origin.rpartition(":")
        if file and line.isdigit():
            return file, int(line)
        return origin, None
    return None, None


def read_trips(path: Path) -> tuple[tuple[Trip, ...], int]:
    """The trips recorded in ``path``, and how many lines were malformed (skipped).

    A run killed mid-write can leave a torn last line: that costs one trip, not the report.
    """
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise TripsError(
            f"{path}: cannot read the trips file: {exc.strerror or exc}"
        ) from None
    trips, malformed = [], 0
    for raw in text.splitlines():
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
            trip = Trip(
                str(record["rule"]),
                str(record["file"]),
                int(record["line"]),
                *_origin(record.get("origin")),
                framework=str(record.get("framework") or "dispatch"),
                error=str(record["error"]) if record.get("error") else None,
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
    """``diagnostics`` with the run's evidence merged in: a finding at a trip's line (or whose
    trace passes through it) gets a "confirmed at run time" step; a trip no finding explains
    becomes a finding that only the run saw.

    ``checked`` maps the real path of every checked file to its path as shown; trips in other
    files (libraries, unchecked tests) and of rules not enabled are left out.
    """
    by_place: dict[tuple[str, int, str], list[Trip]] = {}
    for trip in trips:
        shown = checked.get(os.path.realpath(trip.file))
        if shown is not None and trip.rule in enabled:
            by_place.setdefault((shown, trip.line, trip.rule), []).append(trip)

    # A trip names the line where the guard fired, which for a sink inside a helper is the
    # helper's line, while the static finding sits at the call: a trip confirms the findings
    # reported at its line, or else those whose trace passes through it.
    at_sink: dict[tuple[str, int, str], list[int]] = {}
    on_path: dict[tuple[str, int, str], list[int]] = {}
    for index, diagnostic in enumerate(diagnostics):
        at_sink.setdefault(
            (diagnostic.path, diagnostic.line, diagnostic.rule), []
        ).append(index)
        for step in diagnostic.trace:
            on_path.setdefault((step.path, step.line, diagnostic.rule), []).append(
                index
            )
    confirmed: set[int] = set()
    for place in list(by_place):
        matches = at_sink.get(place) or on_path.get(place)
        if matches:
            confirmed.update(matches)
            del by_place[place]

    merged = []
    for index, diagnostic in enumerate(diagnostics):
        if index in confirmed:
            step = TraceStep(
                diagnostic.path, diagnostic.line, diagnostic.column, CONFIRMED
            )
            diagnostic = replace(diagnostic, trace=diagnostic.trace + (step,))
        merged.append(diagnostic)

    for (shown, line, rule_id), seen in by_place.items():
        spec = RULES_BY_ID[rule_id]
        steps = []
        origin = next((t for t in seen if t.origin_file is not None), None)
        if origin is not None and origin.origin_file is not None:
            origin_shown = checked.get(os.path.realpath(origin.origin_file))
            if origin_shown is not None and origin.origin_line is not None:
                steps.append(
                    TraceStep(
                        origin_shown,
                        origin.origin_line,
                        1,
                        f"{origin.born} here (seen at run time)",
                    )
                )
            else:
                where = origin.origin_file
                if origin.origin_line is not None:
                    where += f":{origin.origin_line}"
                steps.append(TraceStep(shown, line, 1, f"{origin.born} at {where}"))
        steps.append(TraceStep(shown, line, 1, RUNTIME_ONLY))
        raised = next((t.error for t in seen if t.error), None) or spec.runtime_error
        sentence = _sentence(spec.id, seen[0].framework)
        merged.append(
            Diagnostic(
                path=shown,
                line=line,
                column=1,
                rule=spec.id,
                name=spec.name,
                severity=spec.severity,
                message=f"{sentence} (raised at run time: {raised})",
                end_line=line,
                end_column=1,
                trace=tuple(steps),
            )
        )
    return tuple(sorted(merged))


def _sentence(rule_id: str, framework: str) -> str:
    """The first sentence of a finding of ``rule_id`` on ``framework``'s values: the catalog's,
    unless it names another framework's values (DL003 speaks of capture tensors)."""
    spec = RULES_BY_ID[rule_id]
    if framework == "dispatch" or framework not in NAMES:
        return spec.message
    model = get_model(framework)
    return model.message if model.message and rule_id == "DL003" else spec.message
