"""Check groups of files that cannot affect each other, in parallel.

The engine's verdict on a file depends only on the files linked to it by imports (a helper
that hands out capture values, a constants module, a re-exporting ``__init__.py``). The
groups are the connected parts of the resolved import graph (:mod:`.project`), so two groups
never share a flow: checking them apart gives what checking them together gives.

Only the standard library is imported up front; the engine (and libcst) are imported when a
group has to be analysed, so a run answered by the cache never loads them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypeVar

from dispatch_lint.analyzer.diagnostics import Diagnostic, FileError

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.analyzer.engine import AnalysisSettings
    from dispatch_lint.analyzer.project import Import

__all__ = [
    "FileToCheck",
    "Group",
    "GroupResult",
    "analyze_group",
    "check_syntax_only",
    "default_jobs",
    "run_groups",
]

#: Below this much work (in ``Group.cost`` units: about a third of a second, 2 MB of plain
#: code or 100 kB of dispatch code), starting worker processes costs more than they save.
MIN_PARALLEL_COST = 2_000_000
#: The engine's module: whether it is loaded decides who checks the syntax of plain files.
_ENGINE = "dispatch_lint.analyzer.engine"
#: Work is cut into about this many tasks per worker (see ``_tasks``).
TASKS_PER_JOB = 8
#: A byte of a group that needs the data-flow analysis costs about this many bytes of
#: syntax check only (measured on fixtures/ against a runtime-free package).
ANALYSIS_COST = 20


@dataclass(frozen=True)
class FileToCheck:
    """A file read for checking: ``path`` as shown, its raw bytes, its dotted module name.

    ``location`` is where it is (absolute; None for code that is in no file), from which its
    imports are resolved (:mod:`.project`). A ``context`` file is not one the user named: a
    project module one of them imports, read for the analysis, whose own findings are not
    reported. ``imported_as`` holds the module names the run's imports reach it by, and
    ``relative`` the absolute module each of its relative imports names (``(level, module
    as written, absolute name)``); None: not resolved, the engine derives both from module
    names as before. ``imports`` are its import statements as the resolver read them (None:
    not read yet), so that no one reads them again.

    Keeping the record here (not the engine's ``SourceFile``) lets a run answered by the
    cache skip importing the engine and libcst.
    """

    path: str
    source: bytes
    module: str | None = None
    location: str | None = field(default=None, compare=False)
    context: bool = False
    imported_as: tuple[str, ...] | None = None
    relative: tuple[tuple[int, str, str], ...] = ()
    imports: tuple[Import, ...] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Group:
    """Files whose analysis may depend on each other, in run order, and whether any of them
    can take part in a dispatch flow (if none can, only their syntax is checked)."""

    files: tuple[FileToCheck, ...]
    seeded: bool

    @property
    def size(self) -> int:
        """Bytes of source."""
        return sum(len(f.source) for f in self.files)

    @property
    def cost(self) -> int:
        """The scheduling weight: the costliest groups start first."""
        return self.size * (ANALYSIS_COST if self.seeded else 1)


@dataclass(frozen=True)
class GroupResult:
    """What the engine found in one group: findings before selection and suppressions,
    per-file errors, and per-file notes."""

    diagnostics: tuple[Diagnostic, ...] = ()
    errors: tuple[FileError, ...] = ()
    notes: tuple[FileError, ...] = ()


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


# ----------------------------------------------------------------------------- grouping


def with_module_names(files: Sequence[FileToCheck]) -> list[FileToCheck]:
    """``files`` with every module name filled in the way the engine derives a missing one
    (from the run's package folders), so that a group checked alone names its modules as
    the whole run would."""
    if all(f.module for f in files):
        return list(
            files
        )  # Discovery names every importable file: the engine is not needed.
    from dispatch_lint.analyzer.engine import module_names

    names = module_names(files)  # type: ignore[arg-type]  # reads .path and .module only
    return [replace(f, module=names[f.path]) for f in files]


# ---------------------------------------------------------------------------- analysing


def analyze_group(
    files: Sequence[FileToCheck],
    settings: AnalysisSettings | None,
    syntax: Mapping[str, Diagnostic | None] | None = None,
) -> GroupResult:
    """The engine's verdict on ``files`` (``syntax``: CPython's verdicts known already, by
    path). When the engine fails on the set, each file is checked alone so that the failure
    is pinned on the file(s) that cause it."""
    from dispatch_lint.analyzer import engine

    try:
        result = engine.analyze(
            [
                engine.SourceFile(
                    f.path, f.source, f.module, f.context, f.imported_as, f.relative,
                    f.imports,
                )
                for f in files
            ],
            settings,
            syntax,
        )
    except Exception as exc:  # noqa: BLE001 - any engine failure is reported, never raised
        if len(files) > 1:
            parts = [analyze_group([file], settings, syntax) for file in files]
            return GroupResult(
                diagnostics=tuple(d for part in parts for d in part.diagnostics),
                errors=tuple(e for part in parts for e in part.errors),
                notes=tuple(n for part in parts for n in part.notes),
            )
        reason = str(exc).splitlines()[0] if str(exc) else ""
        message = f"internal error while checking this file: {type(exc).__name__}"
        return GroupResult(
            (),
            (FileError(files[0].path, f"{message}: {reason}" if reason else message),),
            (),
        )
    return GroupResult(
        tuple(result.diagnostics),
        tuple(result.errors),
        tuple(getattr(result, "notes", ())),
    )


def check_syntax_only(files: Sequence[FileToCheck]) -> GroupResult:
    """What the engine finds in files that cannot take part in a dispatch flow: CPython's
    syntax errors (DL000), nothing else. Done here so that such runs never load libcst."""
    from dispatch_lint.analyzer.parse import syntax_diagnostic

    found = [
        d
        for f in files
        if not f.context and (d := syntax_diagnostic(f.source, f.path)) is not None
    ]
    return GroupResult(tuple(sorted(found)))


def _split(result: GroupResult, groups: Sequence[Group]) -> list[GroupResult]:
    """A result over several groups cut back into one result per group, by path."""
    owner = {f.path: i for i, group in enumerate(groups) for f in group.files}
    parts: list[tuple[list[Diagnostic], list[FileError], list[FileError]]] = [
        ([], [], []) for _ in groups
    ]
    for diagnostic in result.diagnostics:
        parts[owner[diagnostic.path]][0].append(diagnostic)
    for error in result.errors:
        parts[owner[error.path]][1].append(error)
    for note in result.notes:
        parts[owner[note.path]][2].append(note)
    return [GroupResult(tuple(d), tuple(e), tuple(n)) for d, e, n in parts]


def _tasks(groups: Sequence[Group], jobs: int) -> list[list[int]]:
    """Units of work, the costliest first (see :func:`_batches`)."""
    order = sorted(range(len(groups)), key=lambda i: -groups[i].cost)
    return _batches(order, [g.cost for g in groups], jobs)


def _batches(order: Iterable[int], costs: Sequence[int], jobs: int) -> list[list[int]]:
    """The indices of ``order`` cut into batches of about ``1 / (jobs * TASKS_PER_JOB)`` of
    the whole cost: enough of them to balance the workers, few enough that round trips
    cost nothing."""
    target = sum(costs) / (jobs * TASKS_PER_JOB)
    batches: list[list[int]] = []
    batch: list[int] = []
    cost = 0
    for index in order:
        batch.append(index)
        cost += costs[index]
        if cost >= target:
            batches.append(batch)
            batch, cost = [], 0
    if batch:
        batches.append(batch)
    return batches


#: CPython's verdicts on files, by path (:func:`_syntax_verdicts`).
Verdicts = Mapping[str, Diagnostic | None]
_Done = TypeVar("_Done")
#: The run a forked worker serves: its groups, settings and CPython's verdicts known already,
#: inherited from the parent at fork time so that tasks are only lists of group indices.
_WORK: tuple[Sequence[Group], AnalysisSettings | None, Verdicts] | None = None
#: The files a forked worker compiles (:func:`_compile_in_pool`), inherited likewise.
_COMPILING: Sequence[FileToCheck] = ()


def _run_task(task: list[int]) -> tuple[list[int], list[GroupResult]]:
    assert _WORK is not None, "worker started without a run"
    groups, settings, known = _WORK
    return task, _run_in_process(task, groups, settings, known)


def _run_in_process(
    task: list[int], groups: Sequence[Group], settings: AnalysisSettings | None,
    known: Verdicts | None = None,
) -> list[GroupResult]:
    results: dict[int, GroupResult] = {}
    plain = [i for i in task if not groups[i].seeded]
    if plain and _ENGINE not in sys.modules:
        # Without a seed the engine only checks syntax, like check_syntax_only, whose one
        # purpose is to spare loading libcst: once the engine is loaded, it judges all files.
        results.update((i, check_syntax_only(groups[i].files)) for i in plain)
    elif plain:
        chosen = [groups[i] for i in plain]
        together = analyze_group([f for g in chosen for f in g.files], settings)
        results.update(zip(plain, _split(together, chosen)))
    # CPython's verdicts on the files to analyse first, in a row: a compilation between
    # two analyses runs about a third slower (the caches hold the analysis).
    known = known or {}
    syntax = dict(known)
    syntax.update(_syntax_verdicts(
        [f for i in task if groups[i].seeded for f in groups[i].files
         if f.path not in known and not f.context]  # a context file is checked if reached
    ))
    seeded = [index for index in task if groups[index].seeded]
    if seeded:
        from dispatch_lint.analyzer.parse import nodes_unvalidated

        # Switched once for the whole task: each switch flushes the method caches of every
        # node class (fixtures/ x10, 4,100 groups: 0.3 s of 14).
        with nodes_unvalidated():
            for index in seeded:
                # Alone, not batched: the engine iterates a program until all of it is
                # stable, so unrelated groups analysed together cost each other rounds.
                results[index] = analyze_group(groups[index].files, settings, syntax)
    return [results[i] for i in task]


def _syntax_verdicts(files: Sequence[FileToCheck]) -> dict[str, Diagnostic | None]:
    """:func:`syntax_diagnostic` of each file, by path (a file whose check fails is left
    out: the engine checks it again and reports the failure as that file's)."""
    from dispatch_lint.analyzer.parse import syntax_diagnostic

    verdicts: dict[str, Diagnostic | None] = {}
    for file in files:
        try:
            verdicts[file.path] = syntax_diagnostic(file.source, file.path)
        except Exception:  # noqa: BLE001, S112
            continue
    return verdicts


def run_groups(
    groups: Sequence[Group],
    settings: AnalysisSettings | None,
    jobs: int,
    done: Callable[[int, GroupResult], None] | None = None,
) -> list[GroupResult]:
    """Analyse every group (``jobs`` worker processes at most) and return one result per
    group, in the order of ``groups``. ``done(index, result)`` is told of each result worth
    keeping as it ends (not of a group whose worker died: that may not happen again).

    A run with one job, on a platform without ``fork``, or with little to do stays in this
    process: a pool only pays for itself on runs of many files.
    """
    tasks = _tasks(groups, jobs)
    results: list[GroupResult | None] = [None] * len(groups)
    pending = sum(group.cost for group in groups)
    # The files to analyse are compiled first (CPython's verdicts, DL000); when they are many
    # (a large package in one group with the file that uses the runtime), the workers
    # compile them in parts: alone, the one worker of that group would do it all.
    compiled = [f for group in groups if group.seeded for f in group.files]
    share = sum(len(f.source) for f in compiled) >= MIN_PARALLEL_COST
    parallel = jobs > 1 and (len(tasks) > 1 or share) and pending >= MIN_PARALLEL_COST
    if parallel:
        import multiprocessing  # Only now: small runs do not pay for importing it.

        parallel = "fork" in multiprocessing.get_all_start_methods()
    known = _compile_in_pool(compiled, jobs) if parallel and share else {}
    for task, found, lasting in _execute(
        tasks, groups, settings, jobs if parallel and len(tasks) > 1 else 1, known
    ):
        for index, result in zip(task, found):
            results[index] = result
            if done is not None and lasting:
                done(index, result)
    return [r if r is not None else GroupResult() for r in results]


def _execute(
    tasks: list[list[int]],
    groups: Sequence[Group],
    settings: AnalysisSettings | None,
    jobs: int,
    known: Verdicts,
) -> Iterator[tuple[list[int], list[GroupResult], bool]]:
    """(task, its results, whether they may be kept) for every task (``known``: CPython's
    verdicts on some of their files, by path)."""
    if jobs == 1:
        for task in tasks:
            yield task, _run_in_process(task, groups, settings, known), True
        return
    if any(groups[i].seeded for task in tasks for i in task):
        # Imported before the fork so that the workers do not each import libcst again.
        from dispatch_lint import rules  # noqa: F401
        from dispatch_lint.analyzer import engine  # noqa: F401

    global _WORK
    _WORK = (groups, settings, known)
    try:
        unfinished: list[list[int]] = []
        for task, found in _in_pool(_run_task, tasks, jobs, unfinished):
            yield task, found, True
        # A worker died (a crash in C, the out-of-memory killer), and with it the tasks it
        # held or had not started: each group again, alone in a fresh process, so that only
        # a group that kills its process again is lost, as a per-file error.
        for index in (i for task in unfinished for i in task):
            again: list[list[int]] = []
            for task, found in _in_pool(_run_task, [[index]], 1, again):
                yield task, found, True
            if again:
                yield [index], [_died(groups[index])], False
    finally:
        _WORK = None


def _in_pool(
    work: Callable[[list[int]], _Done], tasks: list[list[int]], jobs: int,
    unfinished: list[list[int]],
) -> Iterator[_Done]:
    """``work`` of each of ``tasks`` (lists of indices) in a pool of forked workers (which
    inherit the files: no pickling of sources), as each ends; the tasks lost to a worker
    that died are added to ``unfinished``."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(min(jobs, len(tasks)), mp_context=context) as pool:
        futures = {pool.submit(work, task): task for task in tasks}
        for future in as_completed(futures):
            try:
                yield future.result()
            except BrokenProcessPool:
                unfinished.append(futures[future])


def _compile_in_pool(files: Sequence[FileToCheck], jobs: int) -> dict[str, Diagnostic | None]:
    """:func:`_syntax_verdicts` of ``files`` from a pool of forked workers, in parts of about
    equal size (a part lost to a worker that died is left out: it is compiled again where
    its group is analysed)."""
    global _COMPILING
    _COMPILING = files
    verdicts: dict[str, Diagnostic | None] = {}
    parts = _batches(range(len(files)), [len(f.source) for f in files], jobs)
    try:
        for part in _in_pool(_compile_part, parts, jobs, []):
            verdicts.update(part)  # a part lost is compiled where its group is analysed
    finally:
        _COMPILING = ()
    return verdicts


def _compile_part(part: list[int]) -> dict[str, Diagnostic | None]:
    return _syntax_verdicts([_COMPILING[i] for i in part])


def _died(group: Group) -> GroupResult:
    message = "internal error while checking this file: the process checking it died"
    return GroupResult(errors=tuple(FileError(f.path, message) for f in group.files))
