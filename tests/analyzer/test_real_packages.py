"""Real code: the linter on large installed packages that never use the runtime.

A user runs ``dispatch-lint`` over a whole environment or monorepo; on code that does not use
the runtime it must report nothing, never fail on a file, and call a file a syntax error
(DL000) exactly when CPython itself cannot compile it. The verdict of ``compile()`` is computed
here, independently of the linter.

The files are passed one by one, as a pre-commit hook does: walking the package folders would
check nothing where site-packages sits under a git work tree whose ``.gitignore`` hides it
(pyenv's ignores ``/versions``), and honouring ``.gitignore`` is right.
"""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path

import pytest

from dispatch_lint.analyzer.api import lint_paths

PACKAGES = ("numpy", "libcst", "rich", "hypothesis", "numba", "_pytest")


def package_root(name: str) -> Path:
    module = importlib.import_module(name)
    assert module.__file__ is not None
    return Path(module.__file__).resolve().parent


def cpython_refuses(path: Path) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    return False


@pytest.mark.parametrize("name", PACKAGES)
def test_installed_package_gets_no_finding_and_no_error(name: str) -> None:
    files = sorted(package_root(name).rglob("*.py"))
    assert len(files) > 50, f"{name} looks truncated: only {len(files)} files"

    report = lint_paths([str(path) for path in files])

    assert report.errors == ()
    assert report.files == len(files)
    findings = [d for d in report.diagnostics if d.rule != "DL000"]
    assert findings == [], "\n".join(f"{d.path}:{d.line}: {d.rule} {d.message}" for d in findings)
    syntax_errors = [d.path for d in report.diagnostics]
    assert sorted(syntax_errors) == sorted(str(path) for path in files if cpython_refuses(path))
