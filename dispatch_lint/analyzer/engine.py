"""The analysis engine: from source files to diagnostics.

``analyze`` is the one entry point the library API (``api.py``) calls. It checks every file's
syntax with CPython (DL000), keeps the files that can take part in a dispatch flow (they
mention the runtime or a configured name, or are linked by imports to a file that does),
runs the whole-program data-flow analysis (:mod:`dispatch_lint.analyzer.dataflow`) from
the files that can make a data-less value (:func:`entry_files`; the others are parsed with
libcst only when the analysis reaches them), lets the rules judge the recorded events, and turns
the hits into diagnostics with their traces. Positions are computed only for the files a
diagnostic or a trace step points into.
"""

from __future__ import annotations

import gc
import posixpath
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache, partial
from typing import TYPE_CHECKING

import libcst as cst

from dispatch_lint.analyzer import model
from dispatch_lint.analyzer.diagnostics import (
    PRECISION_REDUCED,
    Diagnostic,
    FileError,
    TraceStep,
)
from dispatch_lint.analyzer.events import SINK_TEXT, TRACED_BIRTH, Event, Hit
from dispatch_lint.analyzer.fixes import plan_fix
from dispatch_lint.analyzer.parse import (
    ParseFailure,
    nodes_unvalidated,
    parse_module,
    syntax_diagnostic,
)
from dispatch_lint.analyzer.positions import AnchorPositions
from dispatch_lint.analyzer.dataflow import Program
from dispatch_lint.analyzer.facts import FileInfo, Finding
from dispatch_lint.analyzer.project import Import, code_only, importing, imports_in, name_links
from dispatch_lint.analyzer.values import Step, code_of, squeeze_code
from dispatch_lint.catalog import rule
from dispatch_lint.frameworks import Prefilter, enabled_models

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.rules.base import Rule

__all__ = ["AnalysisResult", "AnalysisSettings", "SinkSpec", "SourceFile", "analyze"]

#: Longer traces keep their first and last steps.
MAX_TRACE_STEPS = 40
#: Recursion limit while analysing: enough for the deepest expressions CPython compiles.
ANALYSIS_RECURSION_LIMIT = 12000


#: How the trace step where a value is born starts.
_BIRTHS = ("born from ", "device made by ", "device made from ", "real result of ")


@dataclass(frozen=True)
class SourceFile:
    """One file to check: ``path`` as the user should see it, its raw bytes, and its dotted
    module name relative to its import root (``pkg.sub.mod``), or None when unknown.

    A ``context`` file is read for the analysis only (a project module a checked file
    imports): its findings are reported only where their trace passes through a checked
    file, and what stops it being analysed is a note. ``imported_as`` and ``relative`` are
    the import resolver's (:class:`~.parallel.FileToCheck`); None: names are derived from
    the module names of the files given. ``imports``: its import statements when read
    already (:func:`~.project.imports_in`).
    """

    path: str
    source: bytes
    module: str | None = None
    context: bool = False
    imported_as: tuple[str, ...] | None = None
    relative: tuple[tuple[int, str, str], ...] = ()
    imports: tuple[Import, ...] | None = field(default=None, compare=False, repr=False)


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
    #: Per-file remarks that are neither findings nor errors (e.g. valid syntax libcst lacks,
    #: or where the analysis dropped precision at a bound: see ``is_precision_note``).
    notes: tuple[FileError, ...] = field(default=())
    #: The steps of work the analysis took (statements run, calls applied, what their
    #: summaries instantiated): deterministic, for budgets in tests and fuzzing.
    work: int = field(default=0, compare=False)


def analyze(files: Sequence[SourceFile], settings: AnalysisSettings | None = None,
            syntax: Mapping[str, Diagnostic | None] | None = None) -> AnalysisResult:
    """Check ``files`` together (they may import each other) and return what was found in
    the files that are not ``context`` (see :class:`SourceFile`).

    ``syntax`` holds CPython's verdicts (:func:`syntax_diagnostic`) on files the caller has
    checked already, by path: compilations run faster in a row than between analyses."""
    with _rare_collections() as keep_parsed, _quiet_about_the_code():
        return _analyze(files, settings or AnalysisSettings(), syntax, keep_parsed)


@contextmanager
def _quiet_about_the_code() -> Iterator[None]:
    """No Python warning about the checked code while analysing it: the value of a literal
    (libcst's ``evaluated_value``) is compiled by CPython, which warns of an invalid escape
    sequence such as ``"\\_"`` (DeprecationWarning on 3.11, SyntaxWarning from 3.12) on the
    user's terminal, about the user's file, under a file name of ``<unknown>``."""
    with warnings.catch_warnings():
        for category in (DeprecationWarning, SyntaxWarning):
            warnings.filterwarnings("ignore", message="invalid escape sequence",
                                    category=category)
        yield


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
        if file.context:
            compiled.append(file)  # CPython's verdict is asked when the analysis reaches it
            continue
        if syntax is not None and file.path in syntax:
            found = syntax[file.path]
        else:
            found = syntax_diagnostic(file.source, file.path)
        if found is None:
            compiled.append(file)
        else:
            diagnostics.append(found)

    parsed: list[FileInfo] = []
    sources: list[bytes] = []  # of the parsed files, by index
    modules = module_names(compiled)
    mentions = Prefilter(settings)
    relevant = relevant_files(compiled, modules, mentions)
    importers: list[list[int]] = [[] for _ in relevant]
    for one, other in name_links(relevant, modules):
        importers[other].append(one)
    entries = entry_files(relevant, importers, mentions)
    entry_infos: list[int] = []  # the entries' indices among ``parsed``
    position: dict[int, int] = {}  # index in ``relevant`` -> index in ``parsed``
    parsed_files: list[SourceFile] = []
    with nodes_unvalidated():
        for index, file in enumerate(relevant):
            tree = None
            load = partial(_parsed, file, notes, errors, keep_parsed)
            if index in entries:
                tree = load()
                if tree is None:
                    continue
                entry_infos.append(len(parsed))
            position[index] = len(parsed)
            parsed_files.append(file)
            sources.append(file.source)
            parsed.append(FileInfo(
                len(parsed), file.path, modules[file.path],
                posixpath.basename(file.path.replace("\\", "/")) == "__init__.py",
                tree, file.imported_as,
                None if file.imported_as is None else {
                    (level, module): absolute for level, module, absolute in file.relative
                },
                load=None if tree is not None else load,
            ))

    if parsed:
        program = Program(parsed, user_model(settings), judge,
                          enabled_models(settings.frameworks), sources,
                          entries=entry_infos,
                          importers=[[position[i] for i in importers[index] if i in position]
                                     for index in position])
        # The interpreter recurses along the tree; CPython accepts deeper expressions than the
        # default limit allows for (a long `a + b + ...` chain). Deeper still is a FileError.
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, ANALYSIS_RECURSION_LIMIT))
        try:
            program.run()
            # An imported module whose names nothing read was never parsed; Python would have
            # failed to import it, which the user is told.
            notes.extend(note for index in sorted(program.imported)
                         if parsed[index].load is not None and parsed_files[index].context
                         and (note := _syntax_note(parsed_files[index])) is not None)
            failed = dict(program.errors)
            found: list[Diagnostic] = []
            reporter = Reporter(parsed, sources)
            context = {info.index for info, file in zip(parsed, parsed_files) if file.context}
            for finding in program.findings.values():
                if finding.event.file in failed:
                    continue
                at = None
                if finding.event.file in context:
                    at = reporter.last_step_outside(finding, context)
                    if at is None:
                        continue  # wholly inside context files: another run's to report
                try:
                    found.append(reporter.diagnostic(finding, at))
                except RecursionError:
                    failed[finding.event.file] = "internal error: code nested too deeply to report"
                except Exception as exc:  # noqa: BLE001 - a file's failure never stops the run
                    failed[finding.event.file] = f"internal error: {type(exc).__name__}: {exc}"
        finally:
            sys.setrecursionlimit(limit)
        notes.extend(
            FileError(parsed[file].path, f"{PRECISION_REDUCED} {where}: {'; '.join(why)}")
            for (file, where), why in program.reduced.items() if file not in failed
        )
        failed_paths = {parsed[index].path for index in failed}
        for index, message in failed.items():
            if index in context:
                notes.append(FileError(parsed[index].path, f"imported module not analysed: "
                                                           f"{message}"))
            else:
                errors.append(FileError(parsed[index].path, message))
        diagnostics.extend(d for d in found if d.path not in failed_paths)
    return AnalysisResult(
        diagnostics=tuple(sorted(set(diagnostics))),
        errors=tuple(sorted(errors)),
        notes=tuple(sorted(notes)),
        work=program.work if parsed else 0,
    )


def _parsed(file: SourceFile, notes: list[FileError], errors: list[FileError],
            keep_parsed: Callable[[], None]) -> cst.Module | None:
    """``file``'s tree, or None with the reason in ``notes`` (libcst cannot parse what
    CPython accepts) or ``errors`` (a failure of ours); ``keep_parsed`` is called after a
    parse (see :func:`_rare_collections`)."""
    # What stops a context file being analysed is a note: it is not a file the user named.
    prefix = "imported module not analysed: " if file.context else ""
    try:
        if file.context:
            # Checked here, when reached, not up front: a library a checked file imports may
            # have thousands of modules that the analysis never reads.
            note = _syntax_note(file)
            if note is not None:
                notes.append(note)
                return None
        tree = parse_module(file.source)
    except ParseFailure as exc:
        notes.append(FileError(file.path, f"{prefix}{exc}"))
        return None
    except Exception as exc:  # noqa: BLE001 - a file's failure never stops the run
        failure = FileError(file.path, f"{prefix}internal error: {type(exc).__name__}: {exc}")
        (notes if file.context else errors).append(failure)
        return None
    keep_parsed()
    return tree


def _syntax_note(file: SourceFile) -> FileError | None:
    """The note for a context file that CPython does not compile, None if it does."""
    found = syntax_diagnostic(file.source, file.path)
    if found is None:
        return None
    return FileError(file.path, f"imported module not analysed: {found.message} "
                                f"(line {found.line})")


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


def relevant_files(files: Sequence[SourceFile], modules: dict[str, str],
                   mentions: Prefilter) -> list[SourceFile]:
    """The files that can take part in a dispatch flow, read as bytes only.

    Seeds mention an enabled framework (``dispatch_lint``, ``jax``) or a name the user
    configured (``mentions`` says which); then every file linked to a relevant file by a resolved import (either way)
    is relevant too: a helper module may hand out capture values, and a constants module may
    hold the device string a seed uses.
    (A group of the import graph's connected parts keeps every file, or none.)
    """
    seeds = [i for i, f in enumerate(files) if mentions(f.source)]
    if len(seeds) == len(files) or not seeds:
        return [files[i] for i in seeds]  # no links to follow
    if all(f.imported_as is not None for f in files):
        # Resolved by the project, the files come as a connected part of the import graph
        # (or parts of it: a file outside every flow only costs its analysis, no finding).
        return list(files)
    links: list[set[int]] = [set() for _ in files]
    for one, other in name_links(files, modules):
        links[one].add(other)
        links[other].add(one)
    todo = seeds
    seen = set(todo)
    while todo:
        index = todo.pop()
        for other in links[index]:
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return [files[i] for i in sorted(seen)]


def entry_files(files: Sequence[SourceFile], importers: Sequence[Sequence[int]],
                mentions: Prefilter) -> set[int]:
    """The files among ``files`` (by index; ``importers``: the files importing each one)
    where a data-less value can be made or received back: the seeds (each may make one
    itself, or mentions a configured name: :func:`may_make_values`)
    and every file that imports one, directly or through others. The analysis starts from
    their top levels and functions.

    A file outside them (a library the seeds import, its own imports) cannot make one: it
    sees one only where a seed passes it in, by calling its functions or writing to it,
    and the analysis follows those calls and reads from the seeds. Its functions that no
    seed reaches would be analysed for nothing, and it is not even parsed unless read."""
    return importing(importers, (i for i, f in enumerate(files)
                                 if may_make_values(f, mentions)))


def may_make_values(file: SourceFile, mentions: Prefilter) -> bool:
    """Whether ``file`` may make a data-less value itself (it uses an enabled framework of
    ``mentions`` and, for a traced one, applies its transforms:
    :meth:`~dispatch_lint.frameworks.FrameworkModel.applied_in`) or mentions a configured
    source, sink or sanitizer."""
    code = None
    source = file.source
    for framework in mentions.models:
        if not framework.mentioned_in(source):
            continue
        if not framework.traces():
            return True
        if code is None:
            code = code_only(source)
        if framework.applied_in(code, imports_in(file)):
            return True
    return mentions.mentions_a_name(source)


# ----------------------------------------------------------------------------- reports


#: The step where a value enters a called function: "parameter `v` of `helper()`".
_HELPER_PARAMETER = re.compile(r"parameter `[^`]+` of `([^`]+)\(\)`$")


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

    @staticmethod
    def steps(finding: Finding) -> list[Step]:
        """The whole trace of ``finding``, from the value's birth to the sink."""
        hit = finding.hit
        return hit.trace.steps() if hit.trace is not None else [finding.event.sink]

    def last_step_outside(self, finding: Finding, context: Iterable[int]) -> Step | None:
        """The last step of ``finding``'s trace in a file that is not in ``context``."""
        skipped = set(context)
        return next((s for s in reversed(self.steps(finding)) if s.file not in skipped), None)

    def diagnostic(self, finding: Finding, at: Step | None = None) -> Diagnostic:
        """The diagnostic for ``finding``: its place (the sink's, or the step ``at`` of its
        trace: where a flow into a context file leaves the checked files), its message,
        its trace."""
        hit, event = finding.hit, finding.event
        spec = rule(hit.rule)
        where = (event.file, event.node, event.anchor) if at is None else (
            at.file, at.node, at.anchor)
        line, column, end_line, end_column = self.position(*where)
        steps = self.steps(finding)
        if len(steps) > MAX_TRACE_STEPS:
            # A flow through a long call chain: its start and its end tell the story.
            steps = steps[:MAX_TRACE_STEPS // 4] + steps[-(MAX_TRACE_STEPS * 3 // 4):]
        trace = tuple(self.trace_step(s) for s in steps)
        origin = self.origin(trace, where[0])
        headline = (f"{hit.message or spec.message}: "
                    f"{hit.what.replace(SINK_TEXT, self.message(event.sink))}")
        if at is not None:
            sink = trace[-1]
            headline += f" (in {sink.path}, line {sink.line})"
        advice = hit.help or spec.fix
        message = f"{headline}; {origin}" if origin else headline
        message += f". Fix: {advice} ({spec.id} {spec.name})."
        return Diagnostic(
            path=self.files[where[0]].path, line=line, column=column, rule=spec.id,
            name=spec.name, severity=spec.severity, message=message, end_line=end_line,
            end_column=end_column, trace=trace, headline=headline, help=advice,
            # A fix edits the sink's file: never an imported module, which is read only.
            fix=plan_fix(self, finding) if at is None else None,
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
            origin = f"the tracer is {trace[0].message} ({place})"
            helpers = [m.group(1) for m in map(_HELPER_PARAMETER.match,
                                                (s.message for s in trace[1:])) if m]
            if helpers:
                origin += ", through " + " then ".join(f"`{h}()`" for h in helpers)
            return origin
        # The tensor's birth says more than the birth of the device it was made on, and a
        # device's birth more than the name or default it was made from.
        first = next((i for i, s in enumerate(trace) if s.message.startswith("born from ")),
                     None)
        if first is None:
            first = next((i for i, s in enumerate(trace) if s.message.startswith(_BIRTHS)), 0)
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
        for prefix in _BIRTHS:
            if what.startswith(prefix):
                what = "from " + what[len(prefix):]
                break
        else:
            what = f"({what})"
        subject = f"{name} was born" if name else "the value was born"
        return f"{subject} at {place} {what}"
