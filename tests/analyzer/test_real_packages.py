"""Real code: the linter on large installed packages that never use the runtime, and on
CPython's own test data, which holds files CPython must refuse.

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
import sysconfig
import warnings
from pathlib import Path

import pytest

from dispatch_lint.analyzer.api import lint_paths

PACKAGES = ("numpy", "libcst", "rich", "hypothesis", "numba", "_pytest")


def package_root(name: str) -> Path:
    module = importlib.import_module(name)
    assert module.__file__ is not None
    return Path(module.__file__).resolve().parent


def cpython_verdict(path: Path) -> SyntaxError | ValueError | None:
    """Why CPython refuses the file at ``path``, or None when it compiles."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return exc
    return None


def assert_linted_like_cpython(files: list[Path]) -> None:
    """Lint ``files``: no error, no finding but DL000, and DL000 exactly on the files CPython
    refuses, with CPython's reason and (for a SyntaxError) its line."""
    report = lint_paths([str(path) for path in files])

    assert report.errors == ()
    assert report.files == len(files)
    findings = [d for d in report.diagnostics if d.rule != "DL000"]
    assert findings == [], "\n".join(f"{d.path}:{d.line}: {d.rule} {d.message}" for d in findings)
    refused = {str(path): verdict for path in files if (verdict := cpython_verdict(path))}
    assert sorted(d.path for d in report.diagnostics) == sorted(refused)
    for diagnostic in report.diagnostics:
        verdict = refused[diagnostic.path]
        reason = verdict.msg if isinstance(verdict, SyntaxError) else str(verdict)
        assert reason in diagnostic.message, (diagnostic.message, reason)
        if isinstance(verdict, SyntaxError) and verdict.lineno:
            assert diagnostic.line == verdict.lineno, (diagnostic, verdict)


@pytest.mark.parametrize("name", PACKAGES)
def test_installed_package_gets_no_finding_and_no_error(name: str) -> None:
    files = sorted(package_root(name).rglob("*.py"))
    assert len(files) > 50, f"{name} looks truncated: only {len(files)} files"
    assert_linted_like_cpython(files)


@pytest.mark.parametrize("name", ["test", "lib2to3"])
def test_stdlib_test_data_gets_dl000_exactly_where_cpython_fails(name: str) -> None:
    """CPython's own test data holds files it must refuse (bad coding cookies, misplaced
    ``from __future__``, Python 2 grammar, a BOM with another cookie): each is DL000 with
    CPython's reason, and the others (every second one: the suite's time) are checked
    cleanly."""
    root = Path(sysconfig.get_paths()["stdlib"]) / name
    files = sorted(root.rglob("*.py"))
    if not files:
        pytest.skip(f"this Python was installed without the standard library's {name}/")
    refused = [path for path in files if cpython_verdict(path)]
    assert refused, f"{name}/ has no file CPython refuses"
    assert_linted_like_cpython(sorted(set(files[::2]) | set(refused)))
