"""CLI stories: what a user types and what they see (stdout, stderr, exit status)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from dispatch_lint import __version__
from dispatch_lint.analyzer import cli
from dispatch_lint.catalog import RULES

SARIF_SCHEMA = json.loads(
    (Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(
        encoding="utf-8"
    )
)
@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with one clean file and one that does not parse; the current folder."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    (tmp_path / "good.py").write_text("import os\nprint(os.sep)\n")
    (tmp_path / "bad.py").write_text("def f(:\n    pass\n")
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_process(
    *argv: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dispatch_lint.analyzer.cli", *argv],
        cwd=cwd,
        capture_output=True,
        check=False,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_clean_folder_exits_zero(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "bad.py").unlink()
    assert run(capsys, ".") == (0, "All checks passed (1 file checked).\n", "")


def test_syntax_error_is_a_finding_with_source_and_caret(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys)
    assert code == 1
    assert err == ""
    assert out.splitlines() == [
        "DL000 Syntax error: invalid syntax",
        " --> bad.py:1:7",
        "  |",
        "1 | def f(:",
        "  |       ^",
        "  |",
        "help: fix the syntax error; the rest of the file is checked once it parses",
        "",
        "Found 1 error in 1 file (2 files checked).",
    ]


def test_exit_zero_keeps_the_report(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "--exit-zero", ".")
    assert code == 0
    assert " --> bad.py:1:7\n" in out


def test_missing_path_is_one_line_and_others_still_checked(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "missing.py", "bad.py", "--output-format", "concise")
    assert code == 2
    assert err == "missing.py: error: no such file or folder\n"
    assert "bad.py:1:7: DL000" in out


def test_json_output(
    project: Path, capsys: pytest.CaptureFixture[str], sink_finder: None
) -> None:
    (project / "train.py").write_text("x = make()\nx.backward()\n")
    code, out, _ = run(capsys, "--format", "json")
    document = json.loads(out)
    assert code == 1
    assert document["version"] == 1 and document["files"] == 3
    assert [(d["path"], d["rule"], d["line"]) for d in document["diagnostics"]] == [
        ("bad.py", "DL000", 1),
        ("train.py", "DL001", 2),
    ]
    assert document["diagnostics"][1]["trace"] == [
        {
            "path": "train.py",
            "line": 1,
            "column": 1,
            "message": "a capture tensor is created here",
        },
        {
            "path": "train.py",
            "line": 2,
            "column": 2,
            "message": "it reaches .backward()",
        },
    ]


def test_sarif_output_is_valid(
    project: Path, capsys: pytest.CaptureFixture[str], sink_finder: None
) -> None:
    (project / "train.py").write_text(
        "x = make()\nx.backward()  # noqa\ny.backward()\n"
    )
    code, out, _ = run(capsys, "--format", "sarif", "--include-suppressed")
    log = json.loads(out)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    results = log["runs"][0]["results"]
    assert code == 1
    assert [(r["ruleId"], "suppressions" in r) for r in results] == [
        ("DL000", False),
        ("DL001", True),
        ("DL001", False),
    ]
    assert len(results[2]["codeFlows"][0]["threadFlows"][0]["locations"]) == 2


def test_github_output(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--format", "github")
    assert code == 1
    assert out == (
        "::error file=bad.py,line=1,col=7,endLine=1,endColumn=7,title=DL000 syntax-error"
        "::Syntax error: invalid syntax"
        "%0ASee https://github.com/dispatch-lint/dispatch-lint#dl000-syntax-error\n"
    )


def test_statistics(
    project: Path, capsys: pytest.CaptureFixture[str], sink_finder: None
) -> None:
    (project / "train.py").write_text("a.backward()\nb.backward()\n")
    code, out, _ = run(capsys, "--statistics")
    assert code == 1
    assert out.splitlines() == [
        "    2  DL001  capture-backward",
        "    1  DL000  syntax-error",
        "Found 3 errors in 2 files (3 files checked).",
    ]


def test_trace_shown_as_numbered_notes(
    project: Path, capsys: pytest.CaptureFixture[str], sink_finder: None
) -> None:
    (project / "bad.py").unlink()
    (project / "train.py").write_text("x = make()\nx.backward()\n")
    code, out, _ = run(capsys)
    assert code == 1
    assert out.splitlines() == [
        "DL001 Capture tensors do not support autodiff",
        " --> train.py:2:2",
        "  |",
        "2 | x.backward()",
        "  |  ^^^^^^^^^^^",
        "  |",
        "  1. train.py:1:1: a capture tensor is created here",
        "  2. train.py:2:2: it reaches .backward()",
        "help: replay the captured program first (dispatch.replay / Program.run) and "
        "differentiate the real result, or train on Autodiff(NumPy())",
        "",
        "Found 1 error in 1 file (2 files checked).",
    ]


def test_selection_flags(
    project: Path, capsys: pytest.CaptureFixture[str], sink_finder: None
) -> None:
    (project / "train.py").write_text("x.backward()\n")
    assert run(capsys, "--ignore", "DL001")[0] == 1  # DL000 in bad.py remains
    code, out, _ = run(capsys, "--ignore", "DL000,DL001")
    assert (code, out) == (0, "All checks passed (3 files checked).\n")
    code, out, _ = run(
        capsys, "--select", "DL002", "--extend-select", "DL00", "--format", "concise"
    )
    assert [line for line in out.splitlines() if ": DL001" in line] == [
        "train.py:1:2: DL001 Capture tensors do not support autodiff"
    ]
    code, _, err = run(capsys, "--select", "E501")
    assert code == 2
    assert err.count("\n") == 1 and "--select: unknown rule selector 'E501'" in err


def test_noqa_and_disable_comments(
    project: Path, capsys: pytest.CaptureFixture[str], sink_finder: None
) -> None:
    (project / "bad.py").unlink()
    (project / "train.py").write_text(
        "a.backward()  # noqa: DL001\n"
        "b.backward()  # dispatch-lint: disable=DL001\n"
        "# dispatch-lint: disable-next-line=DL001\n"
        "c.backward()\n"
        "d.backward()  # noqa: DL002\n"
    )
    code, out, _ = run(capsys, "--output-format", "concise")
    assert code == 1
    assert [line for line in out.splitlines() if line.startswith("train.py")] == [
        "train.py:5:2: DL001 Capture tensors do not support autodiff"
    ]


def test_warn_unused_suppressions(
    project: Path, capsys: pytest.CaptureFixture[str], sink_finder: None
) -> None:
    (project / "bad.py").unlink()
    (project / "train.py").write_text(
        "a.backward()  # noqa: DL001\nb = 1  # noqa: DL003\n"
    )
    assert run(capsys)[0] == 0
    code, out, _ = run(capsys, "--warn-unused-suppressions")
    assert code == 1
    assert out.splitlines() == [
        "train.py:2:8: warning: unused suppression '# noqa: DL003': no DL003 finding on its line",
        "",
        "Found 1 unused suppression (2 files checked).",
    ]


def test_list_rules_is_the_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--list-rules")
    assert code == 0
    assert [line.split()[:3] for line in out.splitlines()] == [
        [spec.id, spec.name, spec.severity] for spec in RULES
    ]


@pytest.mark.parametrize("key", ["DL001", "dl001", "capture-backward"])
def test_explain_prints_the_rule_documentation(
    capsys: pytest.CaptureFixture[str], key: str
) -> None:
    code, out, _ = run(capsys, "--explain", key)
    assert code == 0
    assert out.startswith("DL001 capture-backward (error)\n")
    assert "CaptureAutodiffError" in out
    assert "#dl001-capture-backward" in out


def test_explain_unknown_rule_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--explain", "DL999")
    assert (code, out) == (2, "")
    assert err.startswith("dispatch-lint: error: --explain: unknown rule 'DL999'")
    assert err.count("\n") == 1


def test_usage_errors_exit_two(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "--format", "xml")[0] == 2
    assert run(capsys, "--jobs", "0")[0] == 2
    assert run(capsys, "--jobs", "2", "--no-cache", "good.py")[0] == 0


def test_config_found_upward_from_the_checked_path(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "src" / "pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        "[tool.dispatch-lint]\nignore = ['DL000']\n"
    )
    (project / "src" / "pkg" / "bad.py").write_text("x = (\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run_process(str(project / "src"), cwd=elsewhere)
    assert (result.returncode, result.stdout) == (
        0,
        "All checks passed (1 file checked).\n",
    )


def test_broken_config_is_one_line_exit_two(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text(
        "[tool.dispatch-lint]\nselcet = ['DL001']\n"
    )
    code, out, err = run(capsys, ".")
    assert (code, out) == (2, "")
    assert err == (
        f"dispatch-lint: error: {project / 'pyproject.toml'}: [tool.dispatch-lint]: unknown key "
        "'selcet'; allowed keys: select, ignore, extend-select, exclude, per-file-ignores, "
        "src, follow-imports, frameworks, sources, sinks, sanitizers\n"
    )


def test_config_flag(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "strict.toml").write_text("ignore = ['DL000']\n")
    assert run(capsys, "--config", "strict.toml")[0] == 0
    code, _, err = run(capsys, "--config", "nope.toml")
    assert code == 2 and "--config nope.toml: no such file" in err


def test_gitignore_is_respected(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".gitignore").write_text("bad.py\n")
    assert run(capsys)[0] == 0
    assert run(capsys, "bad.py")[0] == 1  # named explicitly: checked anyway


def test_exclude_from_config(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text(
        "[tool.dispatch-lint]\nexclude = ['bad.py']\n"
    )
    assert run(capsys)[:2] == (0, "All checks passed (1 file checked).\n")


def test_force_exclude_for_files_named_by_pre_commit(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text(
        "[tool.dispatch-lint]\nexclude = ['bad.py']\n"
    )
    assert run(capsys, "bad.py", "good.py")[0] == 1
    assert run(capsys, "--force-exclude", "bad.py", "good.py")[:2] == (
        0,
        "All checks passed (1 file checked).\n",
    )


def test_real_process_pipes_have_no_colour_and_no_traceback(project: Path) -> None:
    result = run_process(".", cwd=project, env={"NO_COLOR": "", "FORCE_COLOR": ""})
    assert result.returncode == 1
    assert "\x1b[" not in result.stdout
    assert "Traceback" not in result.stderr
    forced = run_process(".", cwd=project, env={"FORCE_COLOR": "1"})
    assert "\x1b[" in forced.stdout


def test_version_and_empty_runs_import_nothing_heavy(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from dispatch_lint.analyzer.cli import main\n"
        "codes = [main(['.']), main(['--version'])]\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'libcst', 'rich', 'numpy', 'numba'})\n"
        "print(codes, heavy)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        capture_output=True,
        check=False,
        text=True,
        timeout=60,
    )
    assert result.stdout.splitlines() == [
        "All checks passed (0 files checked).",
        f"dispatch-lint {__version__}",
        "[0, 0] []",
    ]


def test_a_bug_outside_any_file_is_one_line(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from dispatch_lint.analyzer import api

    def broken_discovery(*args: object, **kwargs: object) -> object:
        raise OSError("disk on fire\nsecond line")

    monkeypatch.setattr(api, "discover", broken_discovery)
    monkeypatch.delenv("DISPATCH_LINT_DEBUG", raising=False)
    assert run(capsys, ".") == (
        2,
        "",
        "dispatch-lint: error: internal error: OSError: disk on fire\n",
    )


def test_output_format_concise_and_the_format_alias(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    concise = run(capsys, "--output-format", "concise")
    assert concise == run(capsys, "--format", "concise")
    assert concise[1].splitlines() == [
        "bad.py:1:7: DL000 Syntax error: invalid syntax",
        "Found 1 error in 1 file (2 files checked).",
    ]


def test_statistics_as_json(
    project: Path, capsys: pytest.CaptureFixture[str], sink_finder: None
) -> None:
    (project / "train.py").write_text("a.backward()\nb.backward()\n")
    code, out, _ = run(capsys, "--statistics", "--output-format", "json")
    assert code == 1
    assert json.loads(out) == [
        {"code": "DL001", "name": "capture-backward", "count": 2},
        {"code": "DL000", "name": "syntax-error", "count": 1},
    ]
    code, out, err = run(capsys, "--statistics", "--output-format", "sarif")
    assert (code, out) == (2, "")
    assert err == (
        "dispatch-lint: error: --statistics is written as text or json, not sarif: use "
        "--output-format text or --output-format json\n"
    )


def test_no_python_file_under_the_paths_is_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# nothing to lint\n")
    assert run(capsys, "docs", ".") == (
        0,
        "All checks passed (0 files checked).\n",
        "dispatch-lint: warning: No Python files found under docs, .\n",
    )


def test_explain_prints_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    for spec in RULES:
        code, out, _ = run(capsys, "--explain", spec.id.lower())
        assert code == 0
        assert "``" not in out and "::\n" not in out, spec.id
    _, out, _ = run(capsys, "--explain", "DL005")
    assert "Example:\n\n    dev = dispatch.Autodiff(dispatch.Autodiff(dispatch.NumPy()))" in out


def test_command_line_select_wins_over_the_configurations_ignore(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        "[tool.dispatch-lint]\nignore = ['DL004']\n"
    )
    (tmp_path / "model.py").write_text(
        "from dispatch_lint import runtime as dispatch\n"
        "dev = dispatch.Autodiff(dispatch.Capture())\n"
    )
    assert run(capsys, "--no-cache")[0] == 0
    code, out, _ = run(capsys, "--no-cache", "--select", "dl004", "--format", "concise")
    assert code == 1
    assert out.startswith("model.py:2:7: DL004 Autodiff over a capture device")
    code, out, _ = run(capsys, "--no-cache", "--extend-select", "DL004", "--format", "concise")
    assert code == 1 and "DL004" in out
