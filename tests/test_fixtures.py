"""The fixtures truth table, checked both ways: the analyzer against the marks, and the runtime
against the same marks.

A fixture is either one file ``fixtures/<topic>_<case>.py`` or a package folder
``fixtures/<pkg>/`` (an ``__init__.py``, several modules, and ``main.py``). Each fixture has a
``main()`` (for a package, in ``main.py``) that really runs.

Marks. A comment ``# expect: DL001`` marks a line a rule must flag; several ids are
comma-separated (``# expect: DL008, DL001``) and the first one is the error the runtime raises
on that line. Another comment may follow on the same line (the JAX fixtures name JAX's error
there, ``# expect: DL003  # jax-error: TracerBoolConversionError``). A finding through a callee is marked on the call line in the caller. A comment
``# runtime: unreachable-marks`` among the first lines of the entry file says that ``main()``
runs cleanly because every marked line is on a path it does not take. A comment
``# in-trace`` marks a line that the trace of one of the fixture's findings must pass through
(the birth, the calls and the sink in the callee of a finding reported at a call).

(a) Analyzer: ``analyze()`` gets every file of the fixture at once (for a package, with dotted
``SourceFile.module`` names, ``pkg.mod`` and ``pkg`` for ``__init__.py``; a single file is the
top-level module named by its stem) and its set of ``(path, line, rule)`` must equal the marks.

(b) Runtime: guards in ``strict`` mode (so DL004 raises). A single file is loaded under a
private module name; a package is imported as ``<pkg>.main`` with ``fixtures/`` first on
``sys.path``, and afterwards ``sys.path`` and ``sys.modules`` are restored. While the fixture is
loaded and ``main()`` runs, a line tracer limited to the fixture's files records the first
marked line that starts executing. Then:

- if that line exists, the run must raise a ``DispatchError`` whose ``rule`` is the first id
  marked on that line, and that line must be one of the traceback's frames in the fixture (the
  deepest frame for a direct sink; an outer frame when the sink is in a callee, or the call
  line of a ``@no_capture`` function whose wrapper lives in the runtime);
- if no marked line runs, ``main()`` must return normally, and a fixture that has marks must
  say ``# runtime: unreachable-marks``.

A capture error's ``origin`` (where the capture tensor was born) must point into the fixture.

(c) The CLI run the README shows, ``dispatch-lint fixtures/``, reports exactly the union of the
marks: package modules get their names from the folder layout and no fixture disturbs another.

The JAX fixtures under ``fixtures/jax/`` (no ``__init__.py``: it is their import root, and it
must never shadow ``jax``) follow the same conventions; (a), the traces and (c) cover them too,
and ``tests/test_jax_fixtures.py`` runs them under real JAX instead of the runtime.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tokenize
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from dispatch_lint.analyzer.engine import SourceFile, analyze

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"

_EXPECT = re.compile(r"#\s*expect:\s*(DL\d{3}(?:\s*,\s*DL\d{3})*)\s*(?:#.*)?$")
_IN_TRACE = re.compile(r"#\s*in-trace\s*$")
_UNREACHABLE = "# runtime: unreachable-marks"
#: How far down the entry file the ``# runtime:`` directive may sit (after the docstring).
_DIRECTIVE_LINES = 8
#: Single-file fixtures are imported under this prefix so that they shadow no real module.
_PRIVATE_PREFIX = "dispatch_lint_fixture_"

#: Fixtures on which one side disagrees with DESIGN.md and the agreed semantics, keyed by
#: (fixture name, "analyzer" | "runtime"). Each entry is a strict xfail: it must keep failing
#: until the named side is fixed, and then the entry must go. JAX fixtures are named
#: ``jax/<name>``; their "runtime" is JAX itself.
KNOWN_DISAGREEMENTS: dict[tuple[str, str], str] = {
    # JAX fixtures that real JAX runs as marked, where the analyzer disagrees.
}

Mark = tuple[str, int]  # (path relative to the repo root, 1-based line)


@dataclass(frozen=True)
class Fixture:
    """One runnable example: its files, the file whose ``main()`` runs, and its marks."""

    name: str
    files: tuple[Path, ...]
    entry: Path
    is_package: bool
    #: The import root: the folder on sys.path when the fixture runs.
    root: Path = FIXTURES

    def module_name(self, path: Path) -> str:
        """The dotted name ``path`` is imported under when ``root`` is on sys.path."""
        parts = list(path.relative_to(self.root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        return ".".join(parts)

    @property
    def marks(self) -> dict[Mark, tuple[str, ...]]:
        marks: dict[Mark, tuple[str, ...]] = {}
        for path in self.files:
            for line, rules in read_marks(path).items():
                marks[(relative(path), line)] = rules
        return marks

    @property
    def trace_marks(self) -> set[Mark]:
        """Lines marked ``# in-trace``: some finding's trace must pass through each."""
        return {
            (relative(path), line)
            for path in self.files
            for line, text in comments(path).items()
            if _IN_TRACE.search(text)
        }

    @property
    def allows_unreachable_marks(self) -> bool:
        head = self.entry.read_text(encoding="utf-8").splitlines()[:_DIRECTIVE_LINES]
        return any(line.strip() == _UNREACHABLE for line in head)


def relative(path: Path) -> str:
    """``path`` as the user gives it on the command line: relative to the repository root."""
    return path.relative_to(ROOT).as_posix()


def comments(path: Path) -> dict[int, str]:
    """Line -> the comment on it, from the tokenizer (so text inside strings is never a mark)."""
    with path.open("rb") as handle:
        return {
            token.start[0]: token.string
            for token in tokenize.tokenize(handle.readline)
            if token.type == tokenize.COMMENT
        }


def read_marks(path: Path) -> dict[int, tuple[str, ...]]:
    """Line -> rule ids of every ``# expect:`` comment in ``path``."""
    marks: dict[int, tuple[str, ...]] = {}
    for line, text in comments(path).items():
        match = _EXPECT.search(text)
        if match:
            marks[line] = tuple(r.strip() for r in match.group(1).split(","))
    return marks


def discover(root: Path = FIXTURES, prefix: str = "") -> list[Fixture]:
    """The fixtures whose import root is ``root``, named ``prefix`` + file stem or folder."""
    fixtures = []
    for path in sorted(root.iterdir()):
        if path.suffix == ".py":
            fixtures.append(
                Fixture(prefix + path.stem, (path,), path, is_package=False, root=root)
            )
        elif path.is_dir() and (path / "__init__.py").exists():
            files = tuple(
                sorted(p for p in path.rglob("*.py") if "__pycache__" not in p.parts)
            )
            fixtures.append(
                Fixture(
                    prefix + path.name, files, path / "main.py", is_package=True, root=root
                )
            )
    return fixtures


#: The dispatch runtime's fixtures (``fixtures/``).
ALL_FIXTURES = discover()
#: The JAX fixtures (``fixtures/jax/``), checked under JAX by tests/test_jax_fixtures.py.
JAX_FIXTURES = discover(FIXTURES / "jax", prefix="jax/") if (FIXTURES / "jax").is_dir() else []


def parametrize_for(side: str, fixtures: list[Fixture] = ALL_FIXTURES) -> Any:
    params = []
    for fixture in fixtures:
        marks = []
        reason = KNOWN_DISAGREEMENTS.get((fixture.name, side))
        if reason is not None:
            marks.append(pytest.mark.xfail(strict=True, reason=reason))
        params.append(pytest.param(fixture, id=fixture.name, marks=marks))
    return pytest.mark.parametrize("fixture", params)


# --------------------------------------------------------------------------------------------
# The table itself


def test_the_table_is_large_and_well_formed() -> None:
    """Every rule fires somewhere and every fixture has a main() and a one-line docstring."""
    singles = [f for f in ALL_FIXTURES if not f.is_package]
    packages = [f for f in ALL_FIXTURES if f.is_package]
    assert len(ALL_FIXTURES) >= 70, len(ALL_FIXTURES)
    assert len(packages) >= 4, [f.name for f in packages]
    fired = {rule for f in ALL_FIXTURES for rules in f.marks.values() for rule in rules}
    assert fired >= {f"DL00{i}" for i in range(1, 9)}, sorted(fired)
    assert any(not f.marks for f in singles), "some fixtures must be clean"
    for fixture in ALL_FIXTURES:
        text = fixture.entry.read_text(encoding="utf-8")
        assert "\ndef main() -> None:" in text, (
            f"{relative(fixture.entry)} has no main()"
        )
        for path in fixture.files:
            source = path.read_text(encoding="utf-8")
            if path.name == "__init__.py" and not source.strip():
                continue
            docstring = source.lstrip().split("\n", 1)[0]
            assert docstring.startswith('"""') and docstring.endswith('"""'), relative(
                path
            )
            assert len(source.splitlines()) <= 60, (
                f"{relative(path)} is longer than 60 lines"
            )


def test_marks_name_known_rules() -> None:
    from dispatch_lint.catalog import RULES_BY_ID

    for fixture in ALL_FIXTURES:
        for (path, line), rules in fixture.marks.items():
            for rule in rules:
                assert rule in RULES_BY_ID and rule != "DL000", f"{path}:{line}: {rule}"


def test_known_disagreements_name_real_fixtures() -> None:
    names = {f.name for f in [*ALL_FIXTURES, *JAX_FIXTURES]}
    for name, side in KNOWN_DISAGREEMENTS:
        assert name in names and side in ("analyzer", "runtime"), (name, side)


# --------------------------------------------------------------------------------------------
# (a) the analyzer finds exactly the marks


def describe(marks: set[tuple[str, int, str]]) -> str:
    lines = []
    for path, line, rule in sorted(marks):
        source = (
            (ROOT / path).read_text(encoding="utf-8").splitlines()[line - 1].strip()
        )
        lines.append(f"    {path}:{line}: {rule}    {source}")
    return "\n".join(lines) or "    (none)"


def source_files(fixture: Fixture) -> list[SourceFile]:
    return [
        SourceFile(
            path=relative(p), source=p.read_bytes(), module=fixture.module_name(p)
        )
        for p in fixture.files
    ]


@parametrize_for("analyzer")
def test_analyzer_finds_exactly_the_marks(fixture: Fixture) -> None:
    check_findings_equal_marks(fixture)


def check_findings_equal_marks(fixture: Fixture) -> None:
    """``analyze()`` on the fixture's files finds exactly its ``# expect:`` marks."""
    result = analyze(source_files(fixture))
    assert not result.errors, result.errors
    found = {(d.path, d.line, d.rule) for d in result.diagnostics}
    expected = {
        (path, line, rule)
        for (path, line), rules in fixture.marks.items()
        for rule in rules
    }
    if found != expected:
        pytest.fail(
            f"analyzer findings differ from the marks of {fixture.name}\n"
            f"  missing (marked, not found):\n{describe(expected - found)}\n"
            f"  unexpected (found, not marked):\n{describe(found - expected)}",
            pytrace=False,
        )


def test_cli_on_the_whole_folder_reports_the_marks() -> None:
    """The README's first command: `dispatch-lint fixtures/` finds every fixture's marks, with
    package modules named from the folder layout and no fixture disturbing another."""
    command = [
        sys.executable,
        "-m",
        "dispatch_lint.analyzer.cli",
        "fixtures",
        "--no-cache",
    ]
    run = subprocess.run(
        [*command, "--format", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 1, run.stderr
    report = json.loads(run.stdout)
    disputed = {name for name, side in KNOWN_DISAGREEMENTS if side == "analyzer"}
    everything = [*ALL_FIXTURES, *JAX_FIXTURES]
    settled = [f for f in everything if f.name not in disputed]
    paths = {relative(p) for f in settled for p in f.files}
    found = {
        (d["path"], d["line"], d["rule"])
        for d in report["diagnostics"]
        if d["path"] in paths
    }
    expected = {
        (p, line, rule)
        for f in settled
        for (p, line), rs in f.marks.items()
        for rule in rs
    }
    assert report["files"] == sum(len(f.files) for f in everything)
    assert found == expected, (
        f"missing:\n{describe(expected - found)}\nunexpected:\n{describe(found - expected)}"
    )


@pytest.mark.parametrize(
    "fixture", [pytest.param(f, id=f.name) for f in ALL_FIXTURES if f.trace_marks]
)
def test_traces_show_the_path_through_callees(fixture: Fixture) -> None:
    """A finding reported at a call shows where the value was born and the callee's lines."""
    check_traces_pass_the_marks(fixture)


def check_traces_pass_the_marks(fixture: Fixture) -> None:
    """Every ``# in-trace`` line of the fixture is a step of some finding's trace."""
    diagnostics = analyze(source_files(fixture)).diagnostics
    traced = {(step.path, step.line) for d in diagnostics for step in d.trace}
    missing = fixture.trace_marks - traced
    shown = [
        f"  {d.path}:{d.line} {d.rule}: {[(t.path, t.line) for t in d.trace]}"
        for d in diagnostics
    ]
    assert not missing, (
        f"no trace passes through {sorted(missing)}; traces:\n" + "\n".join(shown)
    )


# --------------------------------------------------------------------------------------------
# (b) the runtime raises exactly the first marked error reached


class FirstMarkReached:
    """A ``sys.settrace`` tracer that records the first marked line that starts executing.

    Only frames of the fixture's own files are traced, so the runtime runs at full speed."""

    def __init__(self, marks: Mapping[Mark, tuple[str, ...]]) -> None:
        self._marked = {(str(ROOT / path), line): (path, line) for path, line in marks}
        self._files = {file for file, _ in self._marked}
        self.first: Mark | None = None

    def _global(
        self, frame: FrameType, event: str, arg: object
    ) -> Callable[..., Any] | None:
        if self.first is not None or frame.f_code.co_filename not in self._files:
            return None
        return self._local

    def _local(
        self, frame: FrameType, event: str, arg: object
    ) -> Callable[..., Any] | None:
        if self.first is not None:
            return None
        if event == "line":
            self.first = self._marked.get((frame.f_code.co_filename, frame.f_lineno))
        return self._local

    @contextlib.contextmanager
    def tracing(self) -> Iterator[None]:
        previous = sys.gettrace()
        sys.settrace(self._global)
        try:
            yield
        finally:
            sys.settrace(previous)


@contextlib.contextmanager
def loaded(fixture: Fixture) -> Iterator[Callable[[], Callable[[], None]]]:
    """Yield a loader that imports the fixture and returns its ``main``; undo the import after.

    The import itself runs inside the caller's tracer and guard mode: module-level code is part
    of the program."""
    saved_path = list(sys.path)
    saved_modules = set(sys.modules)

    def load() -> Callable[[], None]:
        if fixture.is_package:
            sys.path.insert(0, str(fixture.root))
            module = importlib.import_module(fixture.module_name(fixture.entry))
        else:
            name = f"{_PRIVATE_PREFIX}{fixture.module_name(fixture.entry)}"
            spec = importlib.util.spec_from_file_location(name, fixture.entry)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module  # dataclasses and pickling look modules up here
            spec.loader.exec_module(module)
        # A package of the same name elsewhere on sys.path would silently run instead.
        assert Path(module.__file__ or "").resolve() == fixture.entry, module.__file__
        return module.main  # type: ignore[no-any-return]

    try:
        yield load
    finally:
        sys.path[:] = saved_path
        # Only the fixture's own modules go: libraries the run imported lazily (Numba's
        # compiler, backends of the runtime) must stay, or a second import breaks them.
        for name in set(sys.modules) - saved_modules:
            module_file = getattr(sys.modules[name], "__file__", None) or ""
            if name.startswith(_PRIVATE_PREFIX) or Path(module_file).is_relative_to(
                FIXTURES
            ):
                del sys.modules[name]


def frames_in(fixture: Fixture, exc: BaseException) -> list[Mark]:
    files = {str(p) for p in fixture.files}
    return [
        (relative(Path(frame.filename)), frame.lineno or 0)
        for frame in traceback.extract_tb(exc.__traceback__)
        if frame.filename in files
    ]


@parametrize_for("runtime")
def test_runtime_raises_the_first_marked_error(fixture: Fixture) -> None:
    from dispatch_lint.runtime import errors, guards

    marks = fixture.marks
    tracer = FirstMarkReached(marks)
    raised: BaseException | None = None
    with (
        guards.mode("strict"),
        loaded(fixture) as load,
        contextlib.redirect_stdout(io.StringIO()),
    ):
        try:
            with tracer.tracing():
                load()()
        except Exception as exc:  # noqa: BLE001 - anything but the marked error is a failure
            raised = exc

    first = tracer.first
    if first is None:
        if raised is not None:
            raise AssertionError(
                f"{fixture.name}: main() raised before any marked line ran"
            ) from raised
        if marks and not fixture.allows_unreachable_marks:
            pytest.fail(
                f"{fixture.name}: main() ran cleanly but the fixture has marks: make main() "
                f"reach them, or add {_UNREACHABLE!r} if they are on paths it never takes",
                pytrace=False,
            )
        return

    path, line = first
    rule = marks[first][0]
    message = f"{fixture.name}: {path}:{line} is marked {rule} and ran, but main() "
    if raised is None:
        pytest.fail(message + "returned normally", pytrace=False)
    if not isinstance(raised, errors.DispatchError):
        # A test failure, not a type error: chain the fixture's own exception for its traceback.
        raise AssertionError(message + f"raised {type(raised).__name__}") from raised  # noqa: TRY004
    frames = frames_in(fixture, raised)
    assert first in frames, (
        f"{path}:{line} is the first marked line reached ({rule}) but ran without raising; "
        f"the run later raised {raised.rule} through {frames}: {raised}"
    )
    assert raised.rule == rule, (
        f"{path}:{line} is marked {rule}; the runtime raised {raised!r}"
    )
    origin = getattr(raised, "origin", None)
    if origin is not None:
        assert os.path.realpath(origin.file) in {str(p) for p in fixture.files}, origin
