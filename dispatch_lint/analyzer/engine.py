"""The analysis engine: from source files to diagnostics.

``analyze`` is the one entry point the library API (``api.py``) calls. It checks every file's
syntax with CPython (DL000), keeps the files that can take part in a dispatch flow (they
mention the runtime or a configured name, or are linked by imports to a file that does),
parses those once with libcst, runs the whole-program data-flow analysis
(:mod:`dispatch_lint.analyzer.dataflow`), lets the rules judge the recorded events, and turns
the hits into diagnostics with their traces. Positions are computed only for the files a
diagnostic or a trace step points into.
"""

from __future__ import annotations

import gc
import posixpath
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

import libcst as cst

from dispatch_lint.analyzer import model
from dispatch_lint.analyzer.diagnostics import Diagnostic, FileError, TraceStep
from dispatch_lint.analyzer.events import SINK_TEXT, TRACED_BIRTH, Event, Hit
from dispatch_lint.analyzer.parse import (
    ParseFailure,
    nodes_unvalidated,
    parse_module,
    syntax_diagnostic,
)
from dispatch_lint.analyzer.positions import AnchorPositions
from dispatch_lint.analyzer.dataflow import Program
from dispatch_lint.analyzer.facts import FileInfo, Finding
from dispatch_lint.analyzer.values import Step, code_of, squeeze_code
from dispatch_lint.catalog import rule
from dispatch_lint.frameworks import enabled_models, prefilter_needles

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.rules.base import Rule

__all__ = ["AnalysisResult", "AnalysisSettings", "SinkSpec", "SourceFile", "analyze"]

#: Longer traces keep their first and last steps.
MAX_TRACE_STEPS = 40
#: Recursion limit while analysing: enough for the deepest expressions CPython compiles.
ANALYSIS_RECURSION_LIMIT = 12000


@dataclass(frozen=True)
class SourceFile:
    """One file to check: ``path`` as the user should see it, its raw bytes, and its dotted
    module name relative to its import root (``pkg.sub.mod``), or None when unknown."""

    path: str
    source: bytes
    module: str | None = None


@dataclass(frozen=True)
class SinkSpec:
    """A user-declared sink: calling ``name`` with a capture value as argument ``arg`` (an
    index, or a keyword name) is a finding of ``rule``."""

    name: str
    arg: int | str
    rule: str


@dataclass(frozen=True)
class AnalysisSettings:
    """The user-extensible model (``[tool.dispatch-lint]`` sources, sinks, sanitizers), by
    qualified name, and the ``frameworks`` whose models apply (None: every one the package
    knows, :mod:`dispatch_lint.frameworks`)."""

    sources: tuple[str, ...] = ()
    sinks: tuple[SinkSpec, ...] = ()
    sanitizers: tuple[str, ...] = ()
    frameworks: tuple[str, ...] | None = None


@dataclass(frozen=True)
class AnalysisResult:
    diagnostics: tuple[Diagnostic, ...]
    errors: tuple[FileError, ...] = ()
    #: Per-file remarks that are neither findings nor errors (e.g. valid syntax libcst lacks).
    notes: tuple[FileError, ...] = field(default=())


def analyze(files: Sequence[SourceFile], settings: AnalysisSettings | None = None,
            syntax: Mapping[str, Diagnostic | None] | None = None) -> AnalysisResult:
    """Check ``files`` together (they may import each other) and return what was found.

    ``syntax`` holds CPython's verdicts (:func:`syntax_diagnostic`) on files the caller has
    checked already, by path: compilations run faster in a row than between analyses."""
    with _rare_collections() as keep_parsed:
        return _analyze(files, settings or AnalysisSettings(), syntax, keep_parsed)


#: The allocations between two young-generation collections while analysing (CPython: 700).
_YOUNG_THRESHOLD = 100_000


@contextmanager
def _rare_collections() -> Iterator[Callable[[], None]]:
    """Garbage collection kept off the parsed trees while analysing: a large group's trees
    are millions of long-lived objects, which every older-generation collection would walk
    again (measured: 285 files of 230 lines that import each other, 12.2 s -> 7.9 s; the
    analysis makes few cycles, its peak memory is the same without any collection).

    Young collections are made rarer, and the function it gives, called after each parse,
    moves what exists then out of the collector's sight (``gc.freeze``); all is restored
    afterwards. A process that froze objects itself, or that collects as rarely already (a
    nested use), is left as it is: the function given then does nothing."""
    before = gc.get_threshold()
    if before[0] >= _YOUNG_THRESHOLD or gc.get_freeze_count():
        yield _keep_collecting
        return
    gc.set_threshold(_YOUNG_THRESHOLD, *before[1:])
    try:
        yield gc.freeze
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def _keep_collecting() -> None:
    return None


def _analyze(files: Sequence[SourceFile], settings: AnalysisSettings,
             syntax: Mapping[str, Diagnostic | None] | None,
             keep_parsed: Callable[[], None]) -> AnalysisResult:
    diagnostics: list[Diagnostic] = []
    errors: list[FileError] = []
    notes: list[FileError] = []
    compiled: list[SourceFile] = []
    for file in files:
        if syntax is not None and file.path in syntax:
            found = syntax[file.path]
        else:
            found = syntax_diagnostic(file.source, file.path)
        if found is not None:
            diagnostics.append(found)
        else:
            compiled.append(file)

    parsed: list[FileInfo] = []
    sources: list[bytes] = []  # of the parsed files, by index
    modules = module_names(compiled)
    with nodes_unvalidated():
        trees = [(file, _parsed(file, notes, errors, keep_parsed))
                 for file in relevant_files(compiled, modules, settings)]
    for file, tree in trees:
        if tree is None:
            continue
        sources.append(file.source)
        parsed.append(FileInfo(len(parsed), file.path, modules[file.path],
                               posixpath.basename(file.path.replace("\\", "/")) == "__init__.py",
                               tree))

    if parsed:
        program = Program(parsed, user_model(settings), judge,
                          enabled_models(settings.frameworks), sources)
        # The interpreter recurses along the tree; CPython accepts deeper expressions than the
        # default limit allows for (a long `a + b + ...` chain). Deeper still is a FileError.
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, ANALYSIS_RECURSION_LIMIT))
        try:
            program.run()
            failed = dict(program.errors)
            found: list[Diagnostic] = []
            reporter = Reporter(parsed, sources)
            for finding in program.findings.values():
                if finding.event.file in failed:
                    continue
                try:
                    found.append(reporter.diagnostic(finding))
                except RecursionError:
                    failed[finding.event.file] = "internal error: code nested too deeply to report"
                except Exception as exc:  # noqa: BLE001 - a file's failure never stops the run
                    failed[finding.event.file] = f"internal error: {type(exc).__name__}: {exc}"
        finally:
            sys.setrecursionlimit(limit)
        failed_paths = {parsed[index].path for index in failed}
        errors.extend(FileError(parsed[index].path, message) for index, message in failed.items())
        diagnostics.extend(d for d in found if d.path not in failed_paths)
    return AnalysisResult(
        diagnostics=tuple(sorted(set(diagnostics))),
        errors=tuple(sorted(errors)),
        notes=tuple(sorted(notes)),
    )


def _parsed(file: SourceFile, notes: list[FileError], errors: list[FileError],
            keep_parsed: Callable[[], None]) -> cst.Module | None:
    """``file``'s tree, or None with the reason in ``notes`` (libcst cannot parse what
    CPython accepts) or ``errors`` (a failure of ours); ``keep_parsed`` is called after a
    parse (see :func:`_rare_collections`)."""
    try:
        tree = parse_module(file.source)
    except ParseFailure as exc:
        notes.append(FileError(file.path, str(exc)))
        return None
    except Exception as exc:  # noqa: BLE001 - a file's failure never stops the run
        errors.append(FileError(file.path, f"internal error: {type(exc).__name__}: {exc}"))
        return None
    keep_parsed()
    return tree


def judge(event: Event) -> Iterable[Hit]:
    """Every rule's verdict on ``event``."""
    for rule_class in _rules_judging(event.kind):
        yield from rule_class.check(event)


@cache
def _rules_judging(kind: str) -> tuple[type[Rule], ...]:
    """The rules that judge events of ``kind``, in catalog order (asked once per kind)."""
    from dispatch_lint.rules import ALL_RULES

    return tuple(rule_class for rule_class in ALL_RULES if kind in rule_class.events)


def user_model(settings: AnalysisSettings) -> model.Model:
    sinks: dict[str, tuple[model.UserSink, ...]] = {}
    for sink in settings.sinks:
        sinks[sink.name] = (*sinks.get(sink.name, ()), model.UserSink(sink.name, sink.arg,
                                                                      sink.rule))
    return model.Model(frozenset(settings.sources), sinks, frozenset(settings.sanitizers))


# --------------------------------------------------------------------------- prefilter


def module_names(files: Sequence[SourceFile]) -> dict[str, str]:
    """Each file's dotted module name: the given one, or one derived from its path (the
    folders above it that hold an ``__init__.py`` of this run are its packages)."""
    paths = {f.path.replace("\\", "/") for f in files}
    names: dict[str, str] = {}
    for file in files:
        if file.module:
            names[file.path] = file.module
            continue
        path = file.path.replace("\\", "/")
        folder, base = posixpath.split(path)
        parts = [] if base == "__init__.py" else [base.rsplit(".", 1)[0]]
        if base == "__init__.py":
            parts.append(posixpath.basename(folder) or "__init__")
            folder = posixpath.dirname(folder)
        while folder and posixpath.join(folder, "__init__.py") in paths:
            parts.append(posixpath.basename(folder))
            folder = posixpath.dirname(folder)
        names[file.path] = ".".join(reversed(parts))
    return names


_IMPORT_LINE = re.compile(
    rb"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import[ \t]*(\([^)]*\)|[^\n#;]*)|import[ \t]+([^\n#;]*))",
    re.MULTILINE,
)
_WORD = re.compile(rb"\w+")


def relevant_files(files: Sequence[SourceFile], modules: dict[str, str],
                   settings: AnalysisSettings) -> list[SourceFile]:
    """The files that can take part in a dispatch flow, read as bytes only.

    Seeds mention an enabled framework (``dispatch_lint``, ``jax``) or a name the user
    configured; then every file linked to
    a relevant file by an import (either way) is relevant too: a helper module may hand out
    capture values, and a constants module may hold the device string a seed uses.
    """
    needles = prefilter_needles(settings)
    seeds = [i for i, f in enumerate(files) if any(n in f.source for n in needles)]
    if len(seeds) == len(files):
        return list(files)  # every file is a seed: no links to follow
    by_word: dict[bytes, list[int]] = {}
    for index, file in enumerate(files):
        for part in modules[file.path].split("."):
            by_word.setdefault(part.encode(), []).append(index)
    links: list[set[int]] = [set() for _ in files]
    for index, file in enumerate(files):
        for match in _IMPORT_LINE.finditer(file.source):
            words = _WORD.findall(b" ".join(g for g in match.groups() if g))
            if match.group(1) and match.group(1).startswith(b"."):
                words.extend(_relative_base(file, modules[file.path], match.group(1)))
            for word in words:
                for other in by_word.get(word, ()):
                    if other != index:
                        links[index].add(other)
                        links[other].add(index)
    todo = seeds
    seen = set(todo)
    while todo:
        index = todo.pop()
        for other in links[index]:
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return [files[i] for i in sorted(seen)]


def _relative_base(file: SourceFile, module: str, relative: bytes) -> list[bytes]:
    """The package names a relative import (``from ..pkg import x``) starts from."""
    package = module.split(".")
    if posixpath.basename(file.path.replace("\\", "/")) != "__init__.py":
        package = package[:-1]
    up = len(relative) - len(relative.lstrip(b".")) - 1
    base = package[: len(package) - up] if up else package
    return [part.encode() for part in base if part]


# ----------------------------------------------------------------------------- reports


class Reporter:
    """Turns findings into diagnostics: positions, messages and traces."""

    def __init__(self, files: Sequence[FileInfo], sources: Sequence[bytes]) -> None:
        self.files = files
        self.sources = sources
        self._positions: dict[int, AnchorPositions] = {}

    def position(self, file: int, node: cst.CSTNode, anchor: cst.CSTNode | None
                 ) -> tuple[int, int, int, int]:
        """Where ``node`` of ``file`` is, found through ``anchor``, the statement holding it."""
        span = self.positions(file).span(node, anchor)
        if span is None:
            return (1, 1, 1, 1)
        line, column, end_line, end_column = span
        return (line, column + 1, end_line, end_column + 1)

    def positions(self, file: int) -> AnchorPositions:
        positions = self._positions.get(file)
        if positions is None:
            positions = AnchorPositions(self.files[file].tree, self.sources[file])
            self._positions[file] = positions
        return positions

    def message(self, step: Step) -> str:
        """``step.message``, its code cut from the source rather than generated again."""
        if "{code}" not in step.template:
            return step.template
        text = self.positions(step.file).code(step.node, step.anchor)
        code = squeeze_code(text) if text is not None else code_of(step.node)
        return step.template.replace("{code}", code)

    def trace_step(self, step: Step) -> TraceStep:
        line, column, _, _ = self.position(step.file, step.node, step.anchor)
        return TraceStep(self.files[step.file].path, line, column, self.message(step))

    def diagnostic(self, finding: Finding) -> Diagnostic:
        """The diagnostic for ``finding``: its place, its message, its trace."""
        hit, event = finding.hit, finding.event
        spec = rule(hit.rule)
        line, column, end_line, end_column = self.position(event.file, event.node, event.anchor)
        steps = hit.trace.steps() if hit.trace is not None else [event.sink]
        if len(steps) > MAX_TRACE_STEPS:
            # A flow through a long call chain: its start and its end tell the story.
            steps = steps[:MAX_TRACE_STEPS // 4] + steps[-(MAX_TRACE_STEPS * 3 // 4):]
        trace = tuple(self.trace_step(s) for s in steps)
        origin = self.origin(trace, event.file)
        message = (f"{hit.message or spec.message}: "
                   f"{hit.what.replace(SINK_TEXT, self.message(event.sink))}")
        if origin:
            message += f"; {origin}"
        message += f". Fix: {hit.fix or spec.fix} ({spec.id} {spec.name})."
        return Diagnostic(
            path=self.files[event.file].path, line=line, column=column, rule=spec.id,
            name=spec.name, severity=spec.severity, message=message, end_line=end_line,
            end_column=end_column, trace=trace,
        )

    def origin(self, trace: Sequence[TraceStep], file: int) -> str:
        """"`x` was born at line 12 from `dispatch.placeholder(...)`" for the first step."""
        if len(trace) < 2:
            return ""
        if TRACED_BIRTH in trace[0].message:
            # A tracer is born where its function is traced: say which parameter, or which
            # traced function made it.
            place = f"line {trace[0].line}"
            if trace[0].path != self.files[file].path:
                place += f" of {trace[0].path}"
            return f"the tracer is {trace[0].message} ({place})"
        # The tensor's birth says more than the birth of the device it was made on.
        first = next((i for i, s in enumerate(trace) if s.message.startswith("born from ")), 0)
        where = trace[first]
        name = ""
        for step in trace[first + 1:]:
            if step.message.startswith("assigned to `"):
                name = step.message[len("assigned to "):]
                break
        place = f"line {where.line}"
        if where.path != self.files[file].path:
            place += f" of {where.path}"
        what = where.message
        for prefix in ("born from ", "device made by ", "device made from ", "real result of "):
            if what.startswith(prefix):
                what = "from " + what[len(prefix):]
                break
        else:
            what = f"({what})"
        subject = f"{name} was born" if name else "the value was born"
        return f"{subject} at {place} {what}"
