"""Shared set-up of the analyzer tests: a stand-in engine for front-end stories."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from dispatch_lint.analyzer import engine
from dispatch_lint.analyzer.diagnostics import Diagnostic, TraceStep

_real_analyze = engine.analyze


def backward_finder(
    files: Sequence[engine.SourceFile], settings: object = None, syntax: object = None
) -> engine.AnalysisResult:
    """A stand-in engine for front-end stories, so they do not depend on the data flow:
    DL001 on every line calling ``.backward()``, with a two-step trace (line 1, then the
    call); ``BOOM`` in a file makes the analysis fail; syntax errors come from the real
    engine."""
    if any(b"BOOM" in f.source for f in files):
        raise RecursionError("maximum recursion depth exceeded")
    found = list(_real_analyze(files, None, syntax).diagnostics)  # type: ignore[arg-type]
    for file in files:
        for number, line in enumerate(file.source.decode("utf-8", "replace").splitlines(), 1):
            column = line.find(".backward()")
            if column < 0:
                continue
            trace = (
                TraceStep(file.path, 1, 1, "a capture tensor is created here"),
                TraceStep(file.path, number, column + 1, "it reaches .backward()"),
            )
            found.append(
                Diagnostic(
                    file.path, number, column + 1, "DL001", "capture-backward", "error",
                    "Capture tensors do not support autodiff", number, column + 12, trace,
                )
            )
    return engine.AnalysisResult(tuple(sorted(found)))


@pytest.fixture
def sink_finder(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the test with :func:`backward_finder` as the engine."""
    monkeypatch.setattr(engine, "analyze", backward_finder)
