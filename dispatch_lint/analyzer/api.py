"""The linter's Python API; the CLI is a thin layer over it.

>>> from dispatch_lint import lint_source
>>> lint_source("x = (")[0].rule
'DL000'

``lint_source`` checks one piece of code, ``lint_paths`` files and folders the way the CLI
does (discovery, configuration, suppressions), and ``check_paths`` returns everything a
front end needs to show a run (suppressed findings, unused suppressions, source lines).
``config_for_file`` finds the configuration of a file that may exist only in an editor or on
standard input, and :class:`MemoryResults` keeps results across the runs of a long-lived
caller (the language server).
A failure inside the analysis of one file becomes a :class:`FileError` for that file; the
other files are still checked.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from dispatch_lint.analyzer.config import FOLLOW_IMPORTS, Config, config_for_paths
from dispatch_lint.analyzer.diagnostics import Diagnostic, FileError, Report
from dispatch_lint.analyzer.discovery import discover
from dispatch_lint.analyzer.parallel import (
    FileToCheck,
    GroupResult,
    run_groups,
    with_module_names,
)
from dispatch_lint.analyzer.project import (
    ModuleIndex,
    Project,
    import_groups,
    name_links,
)
from dispatch_lint.analyzer.suppressions import (
    UnusedSuppression,
    apply_suppressions,
    find_suppressions,
)
from dispatch_lint.analyzer.trips import Trip, merge_trips

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.analyzer.cache import GroupKey
    from dispatch_lint.analyzer.engine import AnalysisSettings

__all__ = [
    "LintRun",
    "MemoryResults",
    "ResultStore",
    "check_paths",
    "config_for_file",
    "lint_paths",
    "lint_source",
]


@dataclass(frozen=True)
class LintRun:
    """One run over files: the :class:`Report`, and what front ends show beside it."""

    report: Report
    #: Findings silenced by an in-source suppression comment.
    suppressed: tuple[Diagnostic, ...] = ()
    #: Suppression comments that silenced nothing (filled only when asked for).
    unused_suppressions: tuple[UnusedSuppression, ...] = ()
    #: Per-file remarks that are neither findings nor errors.
    notes: tuple[FileError, ...] = ()
    #: The raw bytes of each file with a finding, by shown path (for source excerpts).
    sources: Mapping[str, bytes] = field(default_factory=dict, compare=False)


class ResultStore(Protocol):
    """Where :func:`check_paths` keeps the engine's result of each group of files, keyed
    by everything the result was computed from (see :func:`.cache.group_key`)."""

    def get(self, key: GroupKey) -> GroupResult | None: ...

    def put(self, key: GroupKey, result: GroupResult) -> None: ...

    def save(self) -> None: ...


class MemoryResults:
    """A :class:`ResultStore` in memory, for a caller that checks the same files again and
    again (an editor's open files): a group whose files, contents and imports are as they
    were is not analysed again. One result is kept per group of files (as the on-disk cache
    keeps one per slot), so editing a file a hundred times keeps one, not a hundred."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[str, GroupResult]] = {}

    def get(self, key: GroupKey) -> GroupResult | None:
        entry = self._entries.get(key.slot)
        return entry[1] if entry is not None and entry[0] == key.content else None

    def put(self, key: GroupKey, result: GroupResult) -> None:
        self._entries[key.slot] = (key.content, result)

    def save(self) -> None:
        """Nothing to write: the results live as long as the object."""


def config_for_file(path: str | os.PathLike[str], config_file: str | None = None) -> Config:
    """The configuration that applies to the file at ``path``, which need not exist (an
    editor's new buffer, ``--stdin-filename``): ``config_file`` when given, else the nearest
    ``[tool.dispatch-lint]`` above the nearest folder of ``path`` that exists.

    Raises :class:`~dispatch_lint.analyzer.config.ConfigError` when it is invalid."""
    place = Path(os.path.abspath(path))
    while not place.exists() and place.parent != place:
        place = place.parent
    return config_for_paths([os.fspath(place)], config_file)


def lint_source(
    source: str | bytes, path: str = "<string>", config: Config | None = None
) -> list[Diagnostic]:
    """Check one module's ``source`` (text, or raw bytes with their own encoding) as if it
    were the file ``path``; the result is sorted and honours ``config`` and the source's
    suppression comments. The file is not read or written.

    Raises :class:`RuntimeError` (naming ``path``) when the analysis itself fails on it.
    """
    raw = source.encode("utf-8") if isinstance(source, str) else source
    module = (
        Path(path).stem
        if path.endswith(".py") and Path(path).stem.isidentifier()
        else None
    )
    run = _check_files(
        [FileToCheck(path, raw, module)], config or Config(), warn_unused=False
    )
    if run.report.errors:
        error = run.report.errors[0]
        raise RuntimeError(f"{error.path}: {error.message}")
    return list(run.report.diagnostics)


def lint_paths(
    paths: Sequence[str | os.PathLike[str]], config: Config | None = None
) -> Report:
    """Check the ``.py`` files under ``paths`` (files and folders) like the CLI does.

    Without ``config``, the nearest ``[tool.dispatch-lint]`` above the first path applies
    (:class:`~dispatch_lint.analyzer.config.ConfigError` when it is invalid). Paths that do
    not exist or cannot be read are per-file errors of the report.
    """
    return check_paths(paths, config).report


def check_paths(
    paths: Sequence[str | os.PathLike[str]],
    config: Config | None = None,
    *,
    warn_unused: bool = False,
    trips: Sequence[Trip] = (),
    force_exclude: bool = False,
    status: Callable[[str, int], None] | None = None,
    jobs: int = 1,
    cache: bool = False,
    follow_imports: str | None = None,
    overlays: Mapping[str | os.PathLike[str], bytes] | None = None,
    results: ResultStore | None = None,
) -> LintRun:
    """Like :func:`lint_paths`, with everything the CLI shows.

    ``warn_unused`` collects unused suppressions; ``force_exclude`` applies the configuration's
    ``exclude`` to files named explicitly too; ``trips`` (from a run with
    ``DISPATCH_LINT_TRIPS`` set, see :mod:`.trips`) confirm findings or add those only the
    run saw; ``status`` is told what the run is doing and on how many files
    (``("reading", 1200)``, then ``("checked", 310)`` files so far), for a progress
    display. ``jobs`` is the number of worker processes the analysis may use; with
    ``cache``, results are read from and written to ``.dispatch_lint_cache/`` in the
    configuration's folder (see :mod:`.cache`).

    ``follow_imports`` (``"normal"`` or ``"skip"``; default: the configuration's
    ``follow-imports``, itself ``"normal"`` by default): whether the project modules the
    checked files import are read and analysed with them (see :mod:`.project`). Findings
    are reported in the checked files only: those that start or pass through one.

    ``overlays`` maps paths (as given, or absolute) to contents that replace the files'
    on-disk bytes for this run, for checked and imported files alike; a path in it is a
    file even when it is not on disk. A language server checks an unsaved buffer, and
    ``--stdin-filename`` standard input, as the file at that path, with its imports
    resolved from that place in the project.

    ``results`` keeps the engine's results instead of the on-disk cache (``cache`` is then
    ignored): a :class:`MemoryResults` lets a long-lived caller check the same files again
    without analysing what did not change.
    """
    given = [os.fspath(p) for p in paths] or ["."]
    if config is None:
        config = config_for_paths(given)
    mode = follow_imports if follow_imports is not None else config.follow_imports
    if mode not in FOLLOW_IMPORTS:
        raise ValueError(
            f"follow_imports must be one of {', '.join(map(repr, FOLLOW_IMPORTS))}, "
            f"not {mode!r}"
        )
    index = ModuleIndex({os.fspath(path): data for path, data in (overlays or {}).items()})
    discovery = discover(
        given, config.exclude, config.root, force_exclude=force_exclude, index=index
    )
    if status is not None:
        status("reading", len(discovery.files))
    named, read_errors = [], list(discovery.errors)
    for found in discovery.files:
        location = os.path.normpath(found.location)
        try:
            source = index.read(location)
        except OSError as exc:
            read_errors.append(
                FileError(found.path, f"cannot read: {exc.strerror or exc}")
            )
            continue
        named.append(FileToCheck(found.path, source, found.module, location))
    project = Project(config.import_roots(), index).follow(
        named, follow_imports=mode == "normal"
    )
    if status is not None:
        status("checking", len(named))
    # Only trips name files by their real path; resolving thousands of paths costs.
    checked = (
        {os.path.realpath(f.location): f.path for f in discovery.files} if trips else {}
    )
    if results is None and cache and named:
        from dispatch_lint.analyzer.cache import ResultCache

        results = ResultCache.beside(config.root)
    run = _check_files(
        project.files,
        config,
        warn_unused=warn_unused,
        trips=trips,
        checked=checked,
        jobs=jobs,
        cache=results,
        progress=(lambda count: status("checked", count)) if status else None,
        links=project.links,
    )
    report = Report(
        diagnostics=run.report.diagnostics,
        files=run.report.files,
        errors=tuple(sorted(read_errors + list(run.report.errors))),
    )
    return LintRun(
        report=report,
        suppressed=run.suppressed,
        unused_suppressions=run.unused_suppressions,
        notes=tuple(sorted(set(run.notes) | set(project.notes))),
        sources=run.sources,
    )


def _check_files(
    files: Sequence[FileToCheck],
    config: Config,
    *,
    warn_unused: bool,
    trips: Sequence[Trip] = (),
    checked: Mapping[str, str] | None = None,
    jobs: int = 1,
    cache: ResultStore | None = None,
    progress: Callable[[int], None] | None = None,
    links: Sequence[tuple[int, int]] | None = None,
) -> LintRun:
    """Check ``files`` (named, then context files), linked by imports as ``links`` says
    (pairs of indices; None: judged by module names, for code that is in no file)."""
    named = [f for f in files if not f.context]
    if not named:
        return LintRun(report=Report(diagnostics=(), files=0))
    if links is None:
        files = with_module_names(files)
        links = name_links(files)
    result = _analyze(files, links, config.settings, jobs, cache, progress)
    diagnostics = result.diagnostics
    if trips:
        # Merged before selection and suppressions, which apply to what the run saw too.
        diagnostics = merge_trips(
            diagnostics, trips, checked or {}, config.enabled_rules()
        )
    by_path: dict[str, list[Diagnostic]] = {}
    enabled = _rules_for(config)
    for diagnostic in diagnostics:
        if diagnostic.rule in enabled(diagnostic.path):
            by_path.setdefault(diagnostic.path, []).append(diagnostic)

    kept: list[Diagnostic] = []
    suppressed: list[Diagnostic] = []
    unused: list[UnusedSuppression] = []
    sources: dict[str, bytes] = {}
    for file in named:
        found = by_path.get(file.path, [])
        if not found and not warn_unused:
            continue  # Tokenizing for comments is only worth it where something was found.
        outcome = apply_suppressions(found, find_suppressions(file.source))
        kept.extend(outcome.kept)
        suppressed.extend(outcome.suppressed)
        if outcome.kept:
            sources[file.path] = file.source
        if warn_unused:
            unused.extend(
                UnusedSuppression(file.path, s.line, s.column, code, s.text)
                for s, code in outcome.unused
            )
    return LintRun(
        report=Report(
            diagnostics=tuple(sorted(kept)),
            files=len(named),
            errors=tuple(sorted(result.errors)),
        ),
        suppressed=tuple(sorted(suppressed)),
        unused_suppressions=tuple(sorted(unused)),
        notes=tuple(sorted(result.notes)),
        sources=sources,
    )


def _analyze(
    files: Sequence[FileToCheck],
    links: Sequence[tuple[int, int]],
    settings: AnalysisSettings | None,
    jobs: int,
    cache: ResultStore | None,
    progress: Callable[[int], None] | None = None,
) -> GroupResult:
    """The engine's verdict on ``files``: per independent group (the connected parts of
    ``links``), from ``cache`` when it holds the group's result, else analysed (in ``jobs``
    processes) and stored; sorted. ``progress`` is told how many named files are checked
    so far."""
    from dispatch_lint.frameworks import Prefilter

    groups = import_groups(files, links, Prefilter(settings))
    named = [sum(not f.context for f in group.files) for group in groups]
    results: list[GroupResult | None] = [None] * len(groups)
    keys: list[GroupKey] = []
    if cache is not None:
        from dispatch_lint.analyzer.cache import group_key

        model = repr(settings)
        keys = [group_key(group.files, model) for group in groups]
        results = [cache.get(key) for key in keys]
    missing = [i for i, result in enumerate(results) if result is None]
    checked = sum(named) - sum(named[i] for i in missing)
    if progress is not None:
        progress(checked)

    def store(index: int, result: GroupResult) -> None:
        nonlocal checked
        if cache is not None:
            cache.put(keys[missing[index]], result)
        if progress is not None:
            checked += named[missing[index]]
            progress(checked)

    if missing:
        found = run_groups([groups[i] for i in missing], settings, jobs, store)
        for index, result in zip(missing, found):
            results[index] = result
        if cache is not None:
            cache.save()
    done = [r for r in results if r is not None]
    return GroupResult(
        diagnostics=tuple(sorted(d for r in done for d in r.diagnostics)),
        errors=tuple(sorted(e for r in done for e in r.errors)),
        notes=tuple(sorted(n for r in done for n in r.notes)),
    )


def _rules_for(config: Config) -> Callable[[str], frozenset[str]]:
    """The enabled rule ids per shown path: the configuration's selection less the
    ``per-file-ignores`` whose pattern (relative to the configuration's folder) matches."""
    base = config.enabled_rules()
    if not config.per_file_ignores:
        return lambda path: base

    import pathspec

    root = config.root.resolve()
    patterns = [
        (pathspec.GitIgnoreSpec.from_lines([pattern]), selectors)
        for pattern, selectors in config.per_file_ignores
    ]

    @cache
    def enabled(path: str) -> frozenset[str]:
        location = Path(os.path.abspath(path))
        try:
            relative = location.relative_to(root).as_posix()
        except ValueError:
            relative = path.replace(os.sep, "/")
        ignored = [
            s
            for spec, selectors in patterns
            if spec.match_file(relative)
            for s in selectors
        ]
        if not ignored:
            return base
        return config.enabled_rules(ignored)

    return enabled
