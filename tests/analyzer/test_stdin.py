"""Standard input (``dispatch-lint - --stdin-filename PATH``), as an editor or a script pipes
a buffer in: through the CLI in a subprocess, as ruff is used."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CAPTURE_BACKWARD = (
    "from dispatch_lint import runtime as dispatch\n"
    "x = dispatch.placeholder((2,), device=dispatch.Capture(), name='x')\n"
    "x.sum().backward()\n"
)


def lint(*argv: str, stdin: str | bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "FORCE_COLOR"}
    return subprocess.run(
        [sys.executable, "-m", "dispatch_lint", *argv],
        input=stdin.encode() if isinstance(stdin, str) else stdin,
        cwd=cwd, capture_output=True, check=False, timeout=120, env=env,
    )


@pytest.fixture
def aliaskit(tmp_path: Path) -> Path:
    """A copy of fixtures/aliaskit in an empty folder; the folder."""
    shutil.copytree(FIXTURES / "aliaskit", tmp_path / "aliaskit")
    return tmp_path


def test_stdin_is_reported_as_the_stdin_filename(tmp_path: Path) -> None:
    result = lint("-", "--stdin-filename", "x.py", "--output-format", "concise",
                  stdin=CAPTURE_BACKWARD, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.decode().startswith("x.py:3:1: DL001 Capture tensors do not support")
    assert not (tmp_path / "x.py").exists()  # the name need not exist, and is not created
    # Standard input is a buffer, not a file: no cache beside it either.
    assert not (tmp_path / ".dispatch_lint_cache").exists()


def test_dash_alone_is_reported_as_dash_as_ruff_does(tmp_path: Path) -> None:
    result = lint("-", "--output-format", "json", stdin=CAPTURE_BACKWARD, cwd=tmp_path)
    report = json.loads(result.stdout)
    assert [(d["path"], d["line"], d["rule"]) for d in report["diagnostics"]] == [("-", 3, "DL001")]


def test_stdin_filename_alone_reads_stdin_and_other_paths_are_ignored(tmp_path: Path) -> None:
    (tmp_path / "clean.py").write_text("print(1)\n")
    result = lint("clean.py", "--stdin-filename", "sub/y.py", "--output-format", "concise",
                  stdin=CAPTURE_BACKWARD, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.decode().startswith("sub/y.py:3:1: DL001")
    assert b"Ignoring file clean.py in favor of standard input." in result.stderr


def test_imports_resolve_from_the_stdin_filename_place(aliaskit: Path) -> None:
    """A buffer named as a new module of the aliaskit package (not on disk) imports its
    siblings as that module would: the capture tensor from tools/reading.py is found."""
    source = (FIXTURES / "aliaskit" / "main.py").read_bytes()
    elsewhere = aliaskit / "elsewhere"
    elsewhere.mkdir()
    result = lint("-", "--stdin-filename", "../aliaskit/draft.py", "--output-format", "json",
                  stdin=source, cwd=elsewhere)
    found = json.loads(result.stdout)["diagnostics"]
    assert [(d["path"], d["line"], d["rule"]) for d in found] == [
        ("../aliaskit/draft.py", 16, "DL003"), ("../aliaskit/draft.py", 17, "DL001"),
    ]
    assert found[0]["trace"][0]["path"].endswith(os.path.join("aliaskit", "tools", "reading.py"))
    # Named where nothing imports the package: the same code has nothing to follow.
    alone = lint("-", "--stdin-filename", "draft.py", "--output-format", "json",
                 stdin=source, cwd=elsewhere)
    assert json.loads(alone.stdout)["diagnostics"] == []


def test_configuration_is_found_from_the_stdin_filename_place(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.dispatch-lint]\nignore = ["DL001"]\n')
    outside = tmp_path / "outside"
    outside.mkdir()
    quiet = lint("--stdin-filename", "../project/src/new/module.py", stdin=CAPTURE_BACKWARD,
                 cwd=outside)
    assert quiet.returncode == 0, quiet.stdout
    loud = lint("--stdin-filename", "module.py", stdin=CAPTURE_BACKWARD, cwd=outside)
    assert loud.returncode == 1


def test_fix_writes_the_fixed_source_to_stdout_and_never_the_file(tmp_path: Path) -> None:
    original = (FIXTURES / "nested_autodiff.py").read_text()
    target = tmp_path / "nested_autodiff.py"
    target.write_text("the file on disk is not the buffer\n")
    result = lint("-", "--stdin-filename", "nested_autodiff.py", "--fix",
                  stdin=original, cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.decode() == original.replace(
        "dispatch.Autodiff(trainable)  # expect", "trainable  # expect")
    assert "1 fixed, 0 remaining" in result.stderr.decode()
    assert target.read_text() == "the file on disk is not the buffer\n"

    # Nothing to fix: the source comes back as it was, the findings go to stderr.
    kept = lint("-", "--stdin-filename", "x.py", "--fix", "--output-format", "concise",
                stdin=CAPTURE_BACKWARD, cwd=tmp_path)
    assert kept.returncode == 1
    assert kept.stdout.decode() == CAPTURE_BACKWARD
    assert kept.stderr.decode().startswith("x.py:3:1: DL001")


def test_diff_shows_the_fix_under_the_stdin_filename(tmp_path: Path) -> None:
    original = (FIXTURES / "nested_autodiff.py").read_text()
    result = lint("-", "--stdin-filename", "pkg/nested.py", "--diff", stdin=original, cwd=tmp_path)
    assert result.returncode == 1
    diff = result.stdout.decode()
    assert diff.startswith("--- pkg/nested.py\n+++ pkg/nested.py\n")
    assert "-    second_order = dispatch.Autodiff(trainable)  # expect: DL005" in diff
    assert "+    second_order = trainable  # expect: DL005" in diff
    assert "Would fix 1 error." in result.stderr.decode()


def test_force_exclude_applies_to_the_stdin_filename(tmp_path: Path) -> None:
    """As ruff: an editor pipes every buffer with --force-exclude; an excluded one has no
    findings, and --fix gives its source back unchanged."""
    (tmp_path / "pyproject.toml").write_text('[tool.dispatch-lint]\nexclude = ["scratch/"]\n')
    for extra in ((), ("--fix",)):
        result = lint("--stdin-filename", "scratch/new.py", "--force-exclude", *extra,
                      stdin=CAPTURE_BACKWARD, cwd=tmp_path)
        assert result.returncode == 0
        assert b"No Python files found" not in result.stderr
        if extra:
            assert result.stdout.decode() == CAPTURE_BACKWARD
    checked = lint("--stdin-filename", "kept/new.py", "--force-exclude", stdin=CAPTURE_BACKWARD,
                   cwd=tmp_path)
    assert checked.returncode == 1


@pytest.mark.parametrize(("name", "said"), [
    ("", "--stdin-filename needs the path of the file standard input stands for"),
    ("sub", "--stdin-filename sub is a folder: give the path of the file standard input "
            "stands for"),
])
def test_a_stdin_filename_that_names_no_file_is_a_usage_error(tmp_path: Path, name: str,
                                                              said: str) -> None:
    (tmp_path / "sub").mkdir()
    result = lint("-", "--stdin-filename", name, stdin=CAPTURE_BACKWARD, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == b""
    assert result.stderr.decode().splitlines() == [f"dispatch-lint: error: {said}"]
