"""Runtime trips fed back into the lint report (``dispatch-lint --trips FILE``).

With ``DISPATCH_LINT_TRIPS=FILE`` set, every runtime guard that fires appends one JSON line
``{"rule", "file", "line", "column", "end_line", "end_column", "origin"}`` naming the user's
code that broke the rule (the columns, 1-based, are there when Python says them: 3.11 and
later); JAX's tracer errors add ``"framework": "jax"`` and ``"error"``, JAX's class name
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
    #: where on the line (1-based; the end exclusive), when the run recorded it
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None
    origin_column: int | None = None
    framework: str = "dispatch"
    error: str | None = None


def _origin(origin: object) -> tuple[str | None, int | None, int | None]:
    """The runtime writes ``{"file", "line", "column"}``; a ``"file:line"`` string is
    accepted too. (file, line, column), each None when unknown."""
    if isinstance(origin, Mapping) and origin.get("file"):
        return str(origin["file"]), _number(origin.get("line")), _number(origin.get("column"))
    if isinstance(origin, str) and origin:
        file, _, line = origin.rpartition(":")
        if file and line.isdigit():
            return file, int(line), None
        return origin, None, None
    return None, None, None


def _number(value: object) -> int | None:
    """A positive line or column number, else None (a bool is not one)."""
    return value if type(value) is int and value >= 1 else None


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
            origin_file, origin_line, origin_column = _origin(record.get("origin"))
            trip = Trip(
                str(record["rule"]),
                str(record["file"]),
                int(record["line"]),
                origin_file,
                origin_line,
                column=_number(record.get("column")),
                end_line=_number(record.get("end_line")),
                end_column=_number(record.get("end_column")),
                origin_column=origin_column,
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
        # The place the run recorded, else the start of the line.
        at = next((t for t in seen if t.column is not None), seen[0])
        column = at.column or 1
        end_line, end_column = line, column
        if at.end_line is not None and at.end_column is not None:
            end_line, end_column = at.end_line, at.end_column
        steps = []
        origin = next((t for t in seen if t.origin_file is not None), None)
        if origin is not None and origin.origin_file is not None:
            born = ("the function JAX was tracing" if origin.framework == "jax"
                    else f"the {spec.origin} was created")
            origin_shown = checked.get(os.path.realpath(origin.origin_file))
            if origin_shown is not None and origin.origin_line is not None:
                steps.append(
                    TraceStep(
                        origin_shown,
                        origin.origin_line,
                        origin.origin_column or 1,
                        f"{born} here (seen at run time)",
                    )
                )
            else:
                where = origin.origin_file
                if origin.origin_line is not None:
                    where += f":{origin.origin_line}"
                steps.append(TraceStep(shown, line, column, f"{born} at {where}"))
        steps.append(TraceStep(shown, line, column, RUNTIME_ONLY))
        raised = next((t.error for t in seen if t.error), None) or spec.runtime_error
        sentence, advice = _words(spec.id, seen[0].framework, raised)
        headline = f"{sentence} (raised at run time: {raised})"
        merged.append(
            Diagnostic(
                path=shown,
                line=line,
                column=column,
                rule=spec.id,
                name=spec.name,
                severity=spec.severity,
                message=f"{headline}. Fix: {advice} ({spec.id} {spec.name}).",
                end_line=end_line,
                end_column=end_column,
                trace=tuple(steps),
                headline=headline,
                help=advice,
            )
        )
    return tuple(sorted(merged))


def _words(rule_id: str, framework: str, raised: str) -> tuple[str, str]:
    """The first sentence and the fix of a finding of ``rule_id`` on ``framework``'s values
    that raised ``raised``: the catalog's, unless they speak of another framework's values
    (DL003's speak of capture tensors). Then the sentence is the model's and the fix that of
    its sinks raising ``raised``, or of its first sink of the rule when those disagree (JAX
    raises a plain TypeError for format specs and for traced shapes alike)."""
    spec = RULES_BY_ID[rule_id]
    if rule_id != "DL003" or framework == "dispatch" or framework not in NAMES:
        return spec.message, spec.fix
    model = get_model(framework)
    sinks = [sink for sink in model.sinks.values() if sink.rule == rule_id]
    fixes = {s.fix for s in sinks if s.error.split(" ", 1)[0] == raised}
    if len(fixes) == 1:
        fix = fixes.pop()
    else:
        fix = sinks[0].fix if sinks else spec.fix
    return model.message or spec.message, fix
