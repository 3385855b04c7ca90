"""dispatch-lint: find and stop capture tensors reaching autodiff or leaving their device.

``dispatch_lint.runtime`` is the tensor library with guards; ``lint_source`` and ``lint_paths``
are the linter's Python API. The linter's modules are imported lazily so that importing the
runtime stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["__version__", "lint_source", "lint_paths", "Diagnostic", "Report", "TraceStep"]

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.analyzer.api import lint_paths, lint_source
    from dispatch_lint.analyzer.diagnostics import Diagnostic, Report, TraceStep


def __getattr__(name: str) -> Any:
    if name in ("lint_source", "lint_paths"):
        from dispatch_lint.analyzer import api

        return getattr(api, name)
    if name in ("Diagnostic", "Report", "TraceStep", "FileError"):
        from dispatch_lint.analyzer import diagnostics

        return getattr(diagnostics, name)
    raise AttributeError(f"module 'dispatch_lint' has no attribute {name!r}")
