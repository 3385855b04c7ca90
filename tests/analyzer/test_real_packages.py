"""Real code: the linter on large installed packages that never use the runtime.

A user runs ``dispatch-lint`` over a whole environment or monorepo; on code that does not use
the runtime it must report nothing, never fail on a file, and call a file a syntax error
(DL000) exactly when CPython itself cannot compile it. The verdict of ``compile()`` is computed
here, independently of the linter.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from dispatch_lint.analyzer.engine import SourceFile, analyze

PACKAGES = ("numpy", "libcst", "rich", "hypothesis", "numba", "_pytest")


def package_root(name: str) -> Path:
    module = importlib.import_module(name)
    assert module.__file__ is not None
    return Path(module.__file__).resolve().parent


def source_files(root: Path) -> Iterator[SourceFile]:
    """Every ``.py`` file under ``root``, with its dotted module name from the import root."""
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield SourceFile(path=str(path), source=path.read_bytes(), module=".".join(parts))


def cpython_refuses(file: SourceFile) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(file.source, file.path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    return False


@pytest.mark.parametrize("name", PACKAGES)
def test_installed_package_gets_no_finding_and_no_error(name: str) -> None:
    files = list(source_files(package_root(name)))
    assert len(files) > 50, f"{name} looks truncated: only {len(files)} files"

    result = analyze(files)

    assert result.errors == ()
    not_compiling = {f.path for f in files if cpython_refuses(f)}
    findings = [d for d in result.diagnostics if d.rule != "DL000"]
    assert findings == [], "\n".join(f"{d.path}:{d.line}: {d.rule} {d.message}" for d in findings)
    assert {d.path for d in result.diagnostics} == not_compiling
