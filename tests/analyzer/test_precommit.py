"""The real pre-commit hook. Once, ``pre-commit try-repo`` installs this repository's hook into
its own environment (from the package index) and runs it on a temporary git repository; the
other stories run the same hook definition as a local hook (``_local_hook``), since every
``try-repo`` installs anew (about half a minute)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]

MISUSE = (
    "import dispatch_lint.runtime as dispatch\n"
    "\n"
    "def train():\n"
    "    x = dispatch.placeholder((2,))\n"
    "    x.backward()\n"
)
BROKEN = "def f(:\n    pass\n"
CLEAN = "import os\n\nprint(os.sep)\n"


def test_hook_definition() -> None:
    [hook] = yaml.safe_load(
        (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    )
    assert hook["id"] == "dispatch-lint"
    assert hook["entry"] == "dispatch-lint"
    assert hook["language"] == "python"
    assert hook["types"] == ["python"]
    assert hook.get("pass_filenames", True) is True
    # pre-commit names every changed file; the project's own excludes must still hold.
    assert hook["args"] == ["--force-exclude"]


def _index_reachable(scratch: Path) -> str | None:
    """None when pip can fetch a dependency of the hook, else why not."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--quiet",
            "--dest",
            str(scratch),
            "pathspec",
        ],
        capture_output=True,
        check=False,
        text=True,
        timeout=180,
    )
    if result.returncode != 0:
        return (result.stderr.strip().splitlines() or ["pip download failed"])[-1]
    return None


@pytest.fixture
def try_repo(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    scratch = tmp_path_factory.mktemp("precommit")
    reason = _index_reachable(scratch / "download")
    if reason is not None:
        pytest.skip(
            f"the package index cannot be reached, so pre-commit cannot install the hook: {reason}"
        )
    project = scratch / "project"
    project.mkdir()
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(scratch / "home"),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "NO_COLOR": "1",
    }
    subprocess.run(["git", "init", "-q"], cwd=project, check=True, env=env)
    for name, text in (
        ("misuse.py", MISUSE),
        ("broken.py", BROKEN),
        ("clean.py", CLEAN),
    ):
        (project / name).write_text(text, encoding="utf-8")
    subprocess.run(["git", "add", "."], cwd=project, check=True, env=env)

    def run(*files: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "pre_commit",
                "try-repo",
                str(REPO),
                "dispatch-lint",
                "--color",
                "never",
                "--files",
                *files,
            ],
            cwd=project,
            capture_output=True,
            check=False,
            text=True,
            timeout=1200,
            env=env,
        )

    return run


def test_hook_fails_on_misuse(try_repo) -> None:  # type: ignore[no-untyped-def]
    result = try_repo("misuse.py", "broken.py", "clean.py")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "dispatch-lint" in result.stdout and "Failed" in result.stdout
    assert (
        "DL001 Capture tensors do not support autodiff: `.backward()` is called on a value "
        "that may be a capture tensor\n --> misuse.py:5:5\n" in result.stdout
    )
    assert "DL000 Syntax error: invalid syntax\n --> broken.py:1:7\n" in result.stdout
    assert "clean.py:" not in result.stdout


def test_hook_passes_on_clean_code(tmp_path: Path) -> None:
    """Clean files pass, and a broken file the project excludes is not checked although
    pre-commit names it (the hook's ``--force-exclude``). The hook is this repository's
    definition run by the real ``pre-commit`` (see ``_local_hook``); the install from the
    index is the test above's."""
    project, env = _local_hook(tmp_path)
    (project / "generated").mkdir()
    (project / "pyproject.toml").write_text(
        "[tool.dispatch-lint]\nexclude = ['generated/']\n", encoding="utf-8"
    )
    (project / "clean.py").write_text(CLEAN, encoding="utf-8")
    (project / "generated" / "broken.py").write_text(BROKEN, encoding="utf-8")
    _git(project, env, "add", ".")
    result = _pre_commit(project, env, "--files", "clean.py", "generated/broken.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed" in result.stdout


def _local_hook(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A git repository whose pre-commit configuration is this repository's own hook
    definition (entry, arguments, file types) as a local hook on the interpreter running the
    tests: installing it from the index, as ``try-repo`` does, costs a minute a run."""
    [hook] = yaml.safe_load(
        (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    )
    local = {**hook, "language": "system"}
    project = tmp_path / "project"
    project.mkdir()
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "home"),
        # `entry: dispatch-lint` is this checkout's console script.
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "NO_COLOR": "1",
    }
    _git(project, env, "init", "-q")
    (project / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]}),
        encoding="utf-8",
    )
    return project, env


def _git(project: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(
        ["git", *args], cwd=project, check=True, env=env, capture_output=True
    )


def _pre_commit(
    project: Path, env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--color", "never", *args],
        cwd=project,
        capture_output=True,
        check=False,
        text=True,
        timeout=600,
        env=env,
    )


HELPER = "def backprop(loss):\n    scaled = loss * 2\n    return scaled.backward()\n"
CALLER = (
    "from dispatch_lint import runtime as dispatch\n"
    "from mlops.helpers import backprop\n\n"
    "x = dispatch.placeholder((2,))\n"
    "backprop({argument})\n"
)


def test_the_hook_catches_a_cross_module_bug_when_only_the_caller_is_staged(
    tmp_path: Path,
) -> None:
    """The issue's story: pre-commit names only the changed file (the caller); the helper
    that differentiates a capture tensor lives in a module that did not change."""
    project, env = _local_hook(tmp_path)
    (project / "mlops").mkdir()
    (project / "mlops" / "helpers.py").write_text(HELPER, encoding="utf-8")
    clean = CALLER.format(argument='dispatch.ones((2,), device="autodiff:numpy").sum()')
    (project / "train.py").write_text(clean, encoding="utf-8")
    (project / "other.py").write_text("import os\n", encoding="utf-8")
    _git(project, env, "add", ".")
    _git(project, env, "commit", "-q", "-m", "start", "--no-verify")
    (project / "train.py").write_text(
        CALLER.format(argument="x.sum()"), encoding="utf-8"
    )
    (project / "other.py").write_text("import os  # unstaged\n", encoding="utf-8")
    _git(project, env, "add", "train.py")

    result = _pre_commit(project, env)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "DL001 Capture tensors do not support autodiff" in result.stdout
    assert " --> train.py:5:1\n" in result.stdout
    # The helper's lines are in the trace; the helper itself was not a changed file.
    assert "mlops/helpers.py:3:12: `scaled.backward()` is called" in result.stdout
    assert "(1 file checked)" in result.stdout
