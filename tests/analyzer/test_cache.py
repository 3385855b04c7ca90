"""The results cache: a warm run shows exactly what a cold one shows, editing a helper re-checks
its importers, a damaged cache is ignored and rebuilt, and the cache lives only beside the
configuration (or in the current folder)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from dispatch_lint.analyzer import cli, engine
from dispatch_lint.analyzer.cache import CACHE_DIR, GroupKey, ResultCache
from dispatch_lint.analyzer.diagnostics import Diagnostic, FileError, TraceStep
from dispatch_lint.analyzer.parallel import GroupResult

_real_analyze = engine.analyze

HELPER = """\
from dispatch_lint import runtime as dispatch


def make():
    return dispatch.zeros((2,), device="{device}")
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A helper module handing out a capture tensor, its importer calling ``backward()`` on
    it, and a file that has nothing to do with either; the current folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "helper.py").write_text(HELPER.format(device="capture"))
    (tmp_path / "main.py").write_text("from helper import make\n\nmake().backward()\n")
    (tmp_path / "other.py").write_text("import os\n\nprint(os.sep)\n")
    return tmp_path


@pytest.fixture
def analysed(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The paths the engine is asked to check, call by call."""
    calls: list[list[str]] = []

    def recording(
        files: Sequence[engine.SourceFile],
        settings: object = None,
        syntax: object = None,
    ) -> engine.AnalysisResult:
        calls.append(sorted(f.path for f in files))
        return _real_analyze(files, settings, syntax)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "analyze", recording)
    return calls


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli.main(["--format", "json", *argv])
    out, err = capsys.readouterr()
    assert err == ""
    return code, out


def rules_in(out: str) -> list[tuple[str, str]]:
    return [(d["path"], d["rule"]) for d in json.loads(out)["diagnostics"]]


def test_warm_run_shows_the_same_and_checks_nothing(
    project: Path, capsys: pytest.CaptureFixture[str], analysed: list[list[str]]
) -> None:
    cold = run(capsys)
    assert rules_in(cold[1]) == [("main.py", "DL001")]
    assert analysed
    analysed.clear()
    assert run(capsys) == cold
    assert analysed == []
    assert run(capsys, "--no-cache") == cold
    assert analysed  # --no-cache does not read the cache


def test_editing_a_helper_rechecks_its_importer(
    project: Path, capsys: pytest.CaptureFixture[str], analysed: list[list[str]]
) -> None:
    assert rules_in(run(capsys)[1]) == [("main.py", "DL001")]
    (project / "helper.py").write_text(HELPER.format(device="autodiff:numpy"))
    analysed.clear()
    assert rules_in(run(capsys)[1]) == []
    assert analysed == [["helper.py", "main.py"]]  # other.py stays cached
    (project / "helper.py").write_text(HELPER.format(device="capture"))
    assert rules_in(run(capsys)[1]) == [("main.py", "DL001")]


def test_the_model_in_the_configuration_is_part_of_the_key(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "main.py").write_text("from tools import trace\n\ntrace().backward()\n")
    (project / "tools.py").write_text("def trace():\n    return 1\n")
    assert rules_in(run(capsys)[1]) == []
    (project / "pyproject.toml").write_text(
        '[tool.dispatch-lint]\nsources = ["tools.trace"]\n'
    )
    assert rules_in(run(capsys)[1]) == [("main.py", "DL001")]


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"{not json",
        b'{"format": 1, "stamp": "another version", "entries": {}}',
        b"[1, 2, 3]",
        b"\xff\xfe\x00garbage",
        b"[" * 100_000,
    ],
    ids=["empty", "corrupt", "foreign", "wrong-shape", "binary", "deep"],
)
def test_a_damaged_cache_is_ignored_and_rebuilt(
    project: Path, capsys: pytest.CaptureFixture[str], damage: bytes
) -> None:
    cold = run(capsys)
    results = project / CACHE_DIR / "results.json"
    results.write_bytes(damage)
    assert run(capsys) == cold
    assert json.loads(results.read_bytes())["entries"]  # rebuilt


def test_damaged_entries_are_misses_not_findings(
    project: Path, capsys: pytest.CaptureFixture[str], analysed: list[list[str]]
) -> None:
    cold = run(capsys)
    results = project / CACHE_DIR / "results.json"
    document = json.loads(results.read_bytes())
    for entry in document["entries"].values():
        entry["diagnostics"] = [["main.py", "one", 1]]  # wrong shape and types
    results.write_text(json.dumps(document))
    analysed.clear()
    assert run(capsys) == cold
    assert analysed  # re-checked, not trusted


def test_truncated_cache_file_is_ignored(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cold = run(capsys)
    results = project / CACHE_DIR / "results.json"
    data = results.read_bytes()
    results.write_bytes(data[: len(data) // 2])
    assert run(capsys) == cold


def test_cache_folder_is_tagged_and_ignored_by_git(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys)
    folder = project / CACHE_DIR
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (
        (folder / "CACHEDIR.TAG")
        .read_text()
        .startswith("Signature: 8a477f597d28d172789f06886806bc55")
    )


def test_cache_lives_beside_the_configuration_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "repo"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.dispatch-lint]\n")
    (root / "src" / "pkg" / "__init__.py").write_text("import os\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    run(capsys, str(root / "src"))
    caches = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob(CACHE_DIR))
    assert caches == [Path("repo") / CACHE_DIR]


def test_without_configuration_the_cache_is_in_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "a.py").write_text("x = 1\n")
    monkeypatch.chdir(tmp_path)
    run(capsys, "code")
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob(CACHE_DIR)) == [
        Path(CACHE_DIR)
    ]


def test_no_cache_writes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "--no-cache")
    assert not (project / CACHE_DIR).exists()


def test_runs_that_save_in_turn_keep_each_others_entries(tmp_path: Path) -> None:
    first, second = ResultCache.beside(tmp_path), ResultCache.beside(tmp_path)
    found = Diagnostic(
        "a.py",
        3,
        1,
        "DL001",
        "capture-backward",
        "error",
        "message",
        3,
        9,
        (TraceStep("b.py", 1, 5, "born"),),
        ("confirmed at run time",),
    )
    a, b = GroupKey("a", "a1"), GroupKey("b", "b1")
    first.put(a, GroupResult((found,), (), ()))
    second.put(b, GroupResult((), (FileError("c.py", "cannot read"),), ()))
    first.save()
    second.save()  # loaded before the first saved: merges instead of overwriting
    reread = ResultCache.beside(tmp_path)
    assert reread.get(a) == GroupResult((found,), (), ())
    assert reread.get(a).diagnostics[0].trace == found.trace  # type: ignore[union-attr]
    assert reread.get(b) == GroupResult((), (FileError("c.py", "cannot read"),), ())
    assert reread.get(GroupKey("a", "a2")) is None  # same files, other contents
    assert reread.get(GroupKey("c", "a1")) is None


def test_editing_a_file_again_and_again_keeps_one_entry_per_group(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = project / CACHE_DIR / "results.json"
    for device in ("capture", "numpy", "autodiff:numpy", "capture"):
        (project / "helper.py").write_text(HELPER.format(device=device))
        run(capsys)
        assert len(json.loads(results.read_bytes())["entries"]) == 2


def test_an_unwritable_cache_folder_is_not_an_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / CACHE_DIR).write_text("a file where the folder should be")
    code, out = run(capsys)
    assert (code, rules_in(out)) == (1, [("main.py", "DL001")])


def test_warm_run_over_the_fixtures_shows_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    shutil.copytree(fixtures, tmp_path / "fixtures")
    monkeypatch.chdir(tmp_path)
    cli.main(["fixtures"])  # fills the cache
    capsys.readouterr()
    for output in (["--format", "json"], []):
        cold = cli.main([*output, "--no-cache", "fixtures"]), capsys.readouterr()
        warm = cli.main([*output, "fixtures"]), capsys.readouterr()
        assert warm == cold
        assert cold[0] == 1


_GOOD = [
    "a.py",
    3,
    1,
    "DL001",
    "capture-backward",
    "error",
    "m",
    3,
    9,
    [["a.py", 2, 5, "made here"]],
    ["note"],
    "m in short",
    "do this",
    ["drop it", "safe", [[3, 1, 3, 9, "x"]]],
]


@pytest.mark.parametrize(
    "diagnostic",
    [
        [*_GOOD[:1], True, *_GOOD[2:]],  # a bool is no line number
        [*_GOOD[:6], 7, *_GOOD[7:]],  # a message that is not text
        [*_GOOD[:9], [["a.py", 2, "5", "made here"]], ["note"], *_GOOD[11:]],
        [*_GOOD[:9], [["a.py", 2, 5]], ["note"], *_GOOD[11:]],
        [*_GOOD[:9], [], [1], *_GOOD[11:]],
        [*_GOOD[:9], "", "", *_GOOD[11:]],
        "abcdefghijklmn",  # fourteen items, none of the right kind
        _GOOD[:10],
        [*_GOOD[:11], "h", "p", ["t", "safe", [[3, 1, 3, "9", "x"]]]],  # a column as text
        [*_GOOD[:11], "h", "p", ["t", "safe"]],
        [*_GOOD[:11], "h", 5, None],
    ],
)
def test_a_stored_finding_of_the_wrong_shape_is_refused(diagnostic: object) -> None:
    from dispatch_lint.analyzer.cache import _decode

    with pytest.raises((TypeError, ValueError)):
        _decode({"diagnostics": [diagnostic], "errors": [], "notes": []})


def test_a_stored_finding_reads_back_as_it_was_written() -> None:
    from dispatch_lint.analyzer.cache import _decode, _encode

    entry = {"diagnostics": [_GOOD], "errors": [["b.py", "why"]], "notes": []}
    assert _encode(_decode(entry)) == entry
