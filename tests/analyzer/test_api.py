"""The Python API: ``lint_source`` and ``lint_paths``, the library the CLI is a layer over."""

from __future__ import annotations

from pathlib import Path

import pytest

import dispatch_lint
from dispatch_lint.analyzer.api import check_paths
from dispatch_lint.analyzer.config import Config, ConfigError
from dispatch_lint.analyzer.diagnostics import Report


def test_lint_source_reports_syntax_errors_with_cpython_reason() -> None:
    [diagnostic] = dispatch_lint.lint_source("def f(:\n    pass\n", path="broken.py")
    assert (diagnostic.path, diagnostic.line, diagnostic.rule, diagnostic.name) == (
        "broken.py",
        1,
        "DL000",
        "syntax-error",
    )
    assert diagnostic.message.startswith("Syntax error: ")


def test_lint_source_accepts_bytes_in_their_own_encoding() -> None:
    latin1 = "# -*- coding: latin-1 -*-\nname = 'café'\n".encode("latin-1")
    assert dispatch_lint.lint_source(latin1) == []
    assert dispatch_lint.lint_source(b"\xef\xbb\xbfx = 1\r\n") == []


def test_lint_source_clean_code_and_empty_source() -> None:
    assert dispatch_lint.lint_source("") == []
    assert dispatch_lint.lint_source("import os\nprint(os.sep)\n") == []


def test_lint_source_honours_config_and_suppressions(sink_finder: None) -> None:
    source = "t.backward()\nu.backward()  # noqa: DL001\n"
    assert [d.line for d in dispatch_lint.lint_source(source)] == [1]
    assert dispatch_lint.lint_source(source, config=Config(ignore=("DL001",))) == []
    assert dispatch_lint.lint_source("x = (\n", config=Config(ignore=("DL000",))) == []


def test_lint_source_raises_naming_the_path_when_the_analysis_fails(
    sink_finder: None,
) -> None:
    with pytest.raises(
        RuntimeError,
        match="^model.py: internal error while checking this file: RecursionError",
    ):
        dispatch_lint.lint_source("BOOM = 1\n", path="model.py")


def test_lint_paths_returns_a_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.py").write_text("x = 1\n")
    (tmp_path / "bad.py").write_text("x = (\n")
    report = dispatch_lint.lint_paths(["."])
    assert isinstance(report, Report)
    assert report.files == 2
    assert [(d.path, d.rule) for d in report.diagnostics] == [("bad.py", "DL000")]
    assert report.errors == ()
    assert dispatch_lint.lint_paths([tmp_path / "ok.py"]).diagnostics == ()


def test_lint_paths_missing_path_is_a_per_file_error(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("x = (\n")
    report = dispatch_lint.lint_paths([str(tmp_path / "nope"), str(tmp_path)])
    assert [(e.path, e.message) for e in report.errors] == [
        (str(tmp_path / "nope"), "no such file or folder")
    ]
    assert [d.rule for d in report.diagnostics] == ["DL000"]


def test_lint_paths_finds_the_configuration_upward(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.dispatch-lint]\nignore = ['DL000']\n"
    )
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "bad.py").write_text("x = (\n")
    assert dispatch_lint.lint_paths([tmp_path / "src"]).diagnostics == ()
    (tmp_path / "pyproject.toml").write_text(
        "[tool.dispatch-lint]\nignroe = ['DL000']\n"
    )
    with pytest.raises(ConfigError, match="unknown key 'ignroe'"):
        dispatch_lint.lint_paths([tmp_path / "src"])


def test_a_failing_file_is_an_error_and_the_others_are_still_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sink_finder: None
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("t.backward()\n")
    (tmp_path / "b.py").write_text("BOOM = 1\n")
    (tmp_path / "c.py").write_text("x = (\n")
    report = dispatch_lint.lint_paths(["."])
    assert [(d.path, d.rule) for d in report.diagnostics] == [
        ("a.py", "DL001"),
        ("c.py", "DL000"),
    ]
    assert [(e.path, e.message) for e in report.errors] == [
        (
            "b.py",
            (
                "internal error while checking this file: RecursionError: "
                "maximum recursion depth exceeded"
            ),
        )
    ]


def test_per_file_ignores_relative_to_the_config_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sink_finder: None
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.dispatch-lint.per-file-ignores]\n'tests/*.py' = ['DL001']\n"
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "t.py").write_text("t.backward()\n")
    (tmp_path / "m.py").write_text("t.backward()\n")
    monkeypatch.chdir(tmp_path / "tests")
    report = dispatch_lint.lint_paths([".", "../m.py"])
    assert [d.path for d in report.diagnostics] == ["../m.py"]


def test_check_paths_keeps_suppressed_and_unused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sink_finder: None
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(
        "t.backward()  # noqa: DL001\nx = 1  # noqa: DL002\n"
    )
    (tmp_path / "clean.py").write_text("y = 2  # dispatch-lint: disable=DL003\n")
    run = check_paths(["."], warn_unused=True)
    assert run.report.diagnostics == ()
    assert [(d.path, d.line) for d in run.suppressed] == [("m.py", 1)]
    assert [(u.path, u.line, u.code) for u in run.unused_suppressions] == [
        ("clean.py", 1, "DL003"),
        ("m.py", 2, "DL002"),
    ]
    assert check_paths(["."]).unused_suppressions == ()
