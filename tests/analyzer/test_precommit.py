"""The real pre-commit hook: ``pre-commit try-repo`` installs this repository's hook into its
own environment (from the package index) and runs it on a temporary git repository."""

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


@pytest.fixture(scope="module")
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
    (project / "generated").mkdir()
    (project / "pyproject.toml").write_text(
        "[tool.dispatch-lint]\nexclude = ['generated/']\n", encoding="utf-8"
    )
    for name, text in (
        ("misuse.py", MISUSE),
        ("broken.py", BROKEN),
        ("clean.py", CLEAN),
        ("generated/broken.py", BROKEN),
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


def test_hook_passes_on_clean_code(try_repo) -> None:  # type: ignore[no-untyped-def]
    result = try_repo("clean.py", "generated/broken.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed" in result.stdout
