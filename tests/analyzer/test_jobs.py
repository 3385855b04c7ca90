"""``--jobs N``: the run is split into groups of files that cannot affect each other and checked
in worker processes; what the user sees is byte for byte what one process sees, and what one
engine call over every file at once sees."""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from dispatch_lint.analyzer import cli, engine, parallel
from dispatch_lint.analyzer.api import check_paths
from dispatch_lint.analyzer.config import Config
from dispatch_lint.analyzer.project import import_groups, name_links
from dispatch_lint.frameworks import Prefilter

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

_real_analyze = engine.analyze


@pytest.fixture
def pool_always(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small test projects use the worker pool too (normally only large runs do)."""
    monkeypatch.setattr(parallel, "MIN_PARALLEL_COST", 0)


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = cli.main(["--format", "json", "--no-cache", *argv])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    return out


def _write_project(root: Path, seed: int) -> None:
    """Packages whose modules hand capture (or real) tensors down a chain of helpers and out
    through a fan-out of users, plus modules that never touch the runtime. Two packages
    reuse the same module names, as copies of a project do."""
    rng = random.Random(seed)
    for package in ("alpha", "beta", "gamma"):
        folder = root / package
        folder.mkdir()
        (folder / "__init__.py").write_text("from .chain0 import make\n")
        device = rng.choice(['"capture"', '"numpy"', "dispatch.Capture()"])
        (folder / "chain0.py").write_text(
            "from dispatch_lint import runtime as dispatch\n\n\n"
            f"def make():\n    return dispatch.ones((2,), device={device})\n"
        )
        depth = rng.randint(2, 5)
        for level in range(1, depth):
            (folder / f"chain{level}.py").write_text(
                f"from .chain{level - 1} import make as previous\n\n\n"
                "def make():\n    value = previous()\n    return value * 2\n"
            )
        for user in range(rng.randint(2, 6)):
            sink = rng.choice(["value.backward()", "value.numpy()", "print(value)"])
            (folder / f"user{user}.py").write_text(
                f"from {package}.chain{depth - 1} import make\n\n"
                f"value = make()\n{sink}\n"
            )
    for index in range(rng.randint(3, 8)):
        (root / f"plain{index}.py").write_text(
            f"import os\n\nNAME = os.sep * {index}\n"
        )
    (root / "broken.py").write_text("def f(:\n")
    (root / "gamma" / "user0.py").write_text(
        "from beta import make\nmake().backward()\n"
    )


def test_fixtures_same_json_with_one_and_two_jobs(
    capsys: pytest.CaptureFixture[str], pool_always: None
) -> None:
    one = _json(capsys, "--jobs", "1", str(FIXTURES))
    two = _json(capsys, "--jobs", "2", str(FIXTURES))
    assert one == two
    assert '"rule": "DL001"' in one


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_project_same_json_with_one_and_two_jobs(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    pool_always: None,
    seed: int,
) -> None:
    _write_project(tmp_path, seed)
    monkeypatch.chdir(tmp_path)
    one = _json(capsys, "--jobs", "1")
    two = _json(capsys, "--jobs", "2")
    assert one == two
    assert '"path": "gamma/user0.py"' in one  # a finding through another package
    assert '"rule": "DL000"' in one


def _whole_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine sees every file in one call, as before the run was split."""

    def one_group(
        files: Sequence[parallel.FileToCheck],
        links: object,
        seeds: object,
    ) -> list[parallel.Group]:
        return [parallel.Group(tuple(files), True)]

    monkeypatch.setattr("dispatch_lint.analyzer.api.import_groups", one_group)


def _groups(files: Sequence[parallel.FileToCheck]) -> list[parallel.Group]:
    """The groups of files that are in no folder, linked by their module names."""
    return import_groups(files, name_links(files), Prefilter())


@pytest.mark.parametrize("where", ["fixtures", "generated"])
def test_split_run_finds_what_one_engine_call_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pool_always: None, where: str
) -> None:
    if where == "generated":
        _write_project(tmp_path, 4)
        paths = [str(tmp_path)]
    else:
        paths = [str(FIXTURES)]
    split = check_paths(paths, Config(), jobs=2).report
    with monkeypatch.context() as patch:
        _whole_run(patch)
        whole = check_paths(paths, Config(), jobs=1).report
    assert split == whole
    # Traces and messages are not part of a diagnostic's identity: compare them too.
    assert [(d.message, d.trace) for d in split.diagnostics] == [
        (d.message, d.trace) for d in whole.diagnostics
    ]
    assert len(split.diagnostics) > 3


def test_two_jobs_use_worker_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pool_always: None
) -> None:
    _write_project(tmp_path, 5)
    pids = tmp_path / "pids.txt"

    def recording(
        files: Sequence[engine.SourceFile],
        settings: object = None,
        syntax: object = None,
    ) -> engine.AnalysisResult:
        with pids.open("a") as out:
            out.write(f"{os.getpid()}\n")
        return _real_analyze(files, settings, syntax)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "analyze", recording)
    check_paths([str(tmp_path)], Config(), jobs=2)
    workers = set(pids.read_text().split())
    assert workers and str(os.getpid()) not in workers


def test_a_small_run_stays_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.py").write_text("import dispatch_lint\n")
    (tmp_path / "b.py").write_text("x = (\n")
    seen: list[int] = []

    def recording(
        files: Sequence[engine.SourceFile],
        settings: object = None,
        syntax: object = None,
    ) -> engine.AnalysisResult:
        seen.append(os.getpid())
        return _real_analyze(files, settings, syntax)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "analyze", recording)
    report = check_paths([str(tmp_path)], Config(), jobs=8).report
    assert seen and set(seen) == {os.getpid()}
    assert [d.rule for d in report.diagnostics] == ["DL000"]


def test_groups_keep_importers_with_their_helpers() -> None:
    files = [
        parallel.FileToCheck("app/main.py", b"from app import util\n", "app.main"),
        parallel.FileToCheck("app/util.py", b"X = 1\n", "app.util"),
        parallel.FileToCheck("app/__init__.py", b"", "app"),
        parallel.FileToCheck("tool.py", b"import dispatch_lint.runtime as d\n", "tool"),
        parallel.FileToCheck("lone.py", b"print(1)\n", "lone"),
    ]
    groups = _groups(files)
    assert sorted((tuple(f.path for f in g.files), g.seeded) for g in groups) == [
        (("app/main.py", "app/util.py", "app/__init__.py"), False),
        (("lone.py",), False),
        (("tool.py",), True),
    ]


@pytest.mark.parametrize(
    ("source", "package"),
    [
        (b"from . import a\n", "pkg/sub/__init__.py"),
        # The relative import is not the line's first.
        (b"import os; from .a import x\n", "pkg/sub/__init__.py"),
        (b"from os import (\n    path,\n)\nfrom\t.. import a\n", "pkg/__init__.py"),
    ],
)
def test_a_relative_import_links_a_module_with_the_package_it_names(
    source: bytes, package: str
) -> None:
    files = [
        parallel.FileToCheck("pkg/__init__.py", b"", "pkg"),
        parallel.FileToCheck("pkg/sub/__init__.py", b"", "pkg.sub"),
        parallel.FileToCheck("pkg/sub/mod.py", source, "pkg.sub.mod"),
        parallel.FileToCheck("other.py", b"X = 1\n", "other"),
    ]
    groups = {tuple(f.path for f in g.files) for g in _groups(files)}
    assert ("other.py",) in groups
    assert any({package, "pkg/sub/mod.py"} <= set(g) for g in groups)


def test_an_import_in_a_docstring_or_a_comment_links_nothing() -> None:
    files = [
        parallel.FileToCheck("pkg/__init__.py", b"", "pkg"),
        parallel.FileToCheck(
            "pkg/mod.py",
            b'"""\nsee: from . import a\n"""\n# import pkg\ntext = "import pkg"\n',
            "pkg.mod",
        ),
    ]
    assert sorted(tuple(f.path for f in g.files) for g in _groups(files)) == [
        ("pkg/__init__.py",),
        ("pkg/mod.py",),
    ]


def test_a_worker_that_dies_costs_only_its_own_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pool_always: None
) -> None:
    _write_project(tmp_path, 6)
    (tmp_path / "doomed.py").write_text("import dispatch_lint\n# CRASH\n")

    def crashing(
        files: Sequence[engine.SourceFile],
        settings: object = None,
        syntax: object = None,
    ) -> engine.AnalysisResult:
        if any(b"CRASH" in f.source for f in files):
            os._exit(3)  # only ever in a worker process: the pool is forced on
        return _real_analyze(files, settings, syntax)  # type: ignore[arg-type]

    expected = check_paths([str(tmp_path)], Config(), jobs=2).report
    monkeypatch.setattr(engine, "analyze", crashing)
    report = check_paths([str(tmp_path)], Config(), jobs=2).report
    assert report.diagnostics == expected.diagnostics
    assert [(e.path.rsplit("/", 1)[-1], e.message) for e in report.errors] == [
        (
            "doomed.py",
            "internal error while checking this file: the process checking it died",
        )
    ]


def test_progress_counts_checked_files_up_to_all(
    tmp_path: Path, pool_always: None
) -> None:
    _write_project(tmp_path, 7)
    told: list[tuple[str, int]] = []
    report = check_paths(
        [str(tmp_path)], Config(), jobs=2, status=lambda *what: told.append(what)
    ).report
    counts = [count for phase, count in told if phase == "checked"]
    assert told[:2] == [("reading", report.files), ("checking", report.files)]
    assert counts == sorted(counts)
    assert counts[-1] == report.files
    assert len(counts) > 2


def test_files_are_compiled_in_a_row_before_they_are_analysed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dispatch_lint.analyzer import parse

    events: list[tuple[str, ...]] = []
    real_check = parse.syntax_diagnostic

    def checking(source: bytes, path: str):  # type: ignore[no-untyped-def]
        events.append(("compile", path))
        return real_check(source, path)

    def analysing(
        files: Sequence[engine.SourceFile],
        settings: object = None,
        syntax: object = None,
    ) -> engine.AnalysisResult:
        events.append(("analyse", *(f.path for f in files)))
        return _real_analyze(files, settings, syntax)  # type: ignore[arg-type]

    monkeypatch.setattr(parse, "syntax_diagnostic", checking)
    monkeypatch.setattr(engine, "syntax_diagnostic", checking)
    monkeypatch.setattr(engine, "analyze", analysing)
    files = [
        parallel.FileToCheck("bad.py", b"import dispatch_lint\nx = (\n", "bad"),
        parallel.FileToCheck(
            "ok.py", b"import dispatch_lint\nfrom bad import x\n", "ok"
        ),
    ]
    results = parallel.run_groups(
        _groups(files), None, 1
    )
    # Each file once, all before the analysis: the engine is handed the verdicts.
    assert events == [
        ("compile", "bad.py"),
        ("compile", "ok.py"),
        ("analyse", "bad.py", "ok.py"),
    ]
    assert [d.rule for r in results for d in r.diagnostics] == ["DL000"]


def test_one_large_group_is_compiled_by_the_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pool_always: None
) -> None:
    """A package in one group with the file that uses the runtime: the workers share its
    compilation (DL000 verdicts), and the findings are those of one job."""
    from dispatch_lint.analyzer import parse

    package = tmp_path / "lib"
    package.mkdir()
    (package / "__init__.py").write_text("from .mod0 import f0\n")
    for index in range(12):
        body = "def f{0}(x):\n    return x\n" if index != 7 else "def f{0}(:\n"
        (package / f"mod{index}.py").write_text(
            f"from .mod{(index + 1) % 12} import *\n\n" + body.format(index))
    (tmp_path / "step.py").write_text(
        "from dispatch_lint import runtime as dispatch\nfrom lib import f0\n\n"
        "f0(dispatch.placeholder((2,))).backward()\n")
    pids = tmp_path / "compiled.txt"
    real_check = parse.syntax_diagnostic

    def checking(source: bytes, path: str):  # type: ignore[no-untyped-def]
        with pids.open("a") as out:
            out.write(f"{os.getpid()}\n")
        return real_check(source, path)

    monkeypatch.setattr(parse, "syntax_diagnostic", checking)
    monkeypatch.chdir(tmp_path)
    one = check_paths(["."], Config(), jobs=1).report.diagnostics
    pids.unlink()
    two = check_paths(["."], Config(), jobs=2).report.diagnostics
    assert [(d.path, d.line, d.rule) for d in one] == [
        ("lib/mod7.py", 3, "DL000"), ("step.py", 4, "DL001")]
    assert two == one
    compilers = set(pids.read_text().split())
    assert compilers and str(os.getpid()) not in compilers  # and each file once:
    assert len(pids.read_text().split()) == 14
