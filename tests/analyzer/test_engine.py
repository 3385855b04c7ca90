"""The engine's contract with the library API: which files it reads, what a bad file costs,
and what the diagnostics look like."""

from __future__ import annotations

import pytest

from dispatch_lint.analyzer import dataflow, engine
from dispatch_lint.analyzer.engine import AnalysisResult, SourceFile, analyze
from dispatch_lint.analyzer.parse import ParseFailure

BAD = SourceFile("bad.py", b"from dispatch_lint import runtime as dispatch\ndef f(:\n")
GOOD = SourceFile(
    "good.py",
    b"from dispatch_lint import runtime as dispatch\n"
    b"x = dispatch.placeholder((2,), name='x')\n"
    b"x.backward()\n",
)


def summary(result: AnalysisResult) -> list[tuple[str, int, str]]:
    return [(d.path, d.line, d.rule) for d in result.diagnostics]


def test_a_syntax_error_is_dl000_and_the_other_files_are_still_checked() -> None:
    result = analyze([BAD, GOOD])
    assert summary(result) == [("bad.py", 2, "DL000"), ("good.py", 3, "DL001")]
    assert result.diagnostics[0].message.startswith("Syntax error: ")


def test_files_that_never_use_the_runtime_are_not_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[bytes] = []
    real_parse = engine.parse_module

    def spy(source: bytes):  # type: ignore[no-untyped-def]
        parsed.append(source)
        return real_parse(source)

    monkeypatch.setattr(engine, "parse_module", spy)
    unrelated = SourceFile("other.py", b"class Loss:\n    def backward(self):\n        pass\n")
    result = analyze([unrelated, GOOD])
    assert parsed == [GOOD.source]
    assert summary(result) == [("good.py", 3, "DL001")]


def test_a_helper_module_imported_by_a_runtime_user_is_analysed() -> None:
    helper = SourceFile("helpers.py", b"def fit(t):\n    return t.backward()\n", "helpers")
    user = SourceFile(
        "app.py",
        b"from dispatch_lint import runtime as dispatch\nfrom helpers import fit\n"
        b"fit(dispatch.placeholder((1,)))\n",
        "app",
    )
    assert summary(analyze([helper, user])) == [("app.py", 3, "DL001")]


def test_a_crash_in_one_file_is_an_error_for_that_file_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = dataflow.FunctionRun.stmt_Expr

    def explode(self, stmt, state):  # type: ignore[no-untyped-def]
        if self.program.files[self.file].path == "boom.py":
            raise ValueError("kaboom")
        return real(self, stmt, state)

    monkeypatch.setattr(dataflow.FunctionRun, "stmt_Expr", explode)
    boom = SourceFile("boom.py", GOOD.source)
    result = analyze([boom, GOOD])
    assert summary(result) == [("good.py", 3, "DL001")]
    assert [(e.path, e.message) for e in result.errors] == [
        ("boom.py", "internal error: ValueError: kaboom")
    ]


def test_valid_python_libcst_cannot_parse_is_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(source: bytes):  # type: ignore[no-untyped-def]
        raise ParseFailure("libcst cannot parse this file: newer syntax")

    monkeypatch.setattr(engine, "parse_module", refuse)
    result = analyze([GOOD])
    assert result.diagnostics == () and result.errors == ()
    assert [n.path for n in result.notes] == ["good.py"]


def test_a_long_expression_chain_is_analysed_not_crashed() -> None:
    source = (
        "from dispatch_lint import runtime as dispatch\nx = dispatch.placeholder((2,))\n"
        "y = x" + " + x" * 2500 + "\ny.numpy()\n"
    )
    result = analyze([SourceFile("deep.py", source.encode())])
    assert summary(result) == [("deep.py", 4, "DL003")]
    assert result.errors == ()


def test_output_is_sorted_and_deterministic() -> None:
    files = [GOOD, SourceFile("a.py", GOOD.source), BAD]
    first, second = analyze(files), analyze(list(reversed(files)))
    assert first == second
    assert list(first.diagnostics) == sorted(first.diagnostics)


def test_diagnostic_fields_follow_the_catalog() -> None:
    (diag,) = analyze([GOOD]).diagnostics
    assert (diag.line, diag.column, diag.end_line, diag.end_column) == (3, 1, 3, 13)
    assert (diag.rule, diag.name, diag.severity) == ("DL001", "capture-backward", "error")
    assert "`x` was born at line 2 from `dispatch.placeholder((2,), name='x')`" in diag.message
    assert diag.message.endswith("(DL001 capture-backward).")
    assert [(s.line, s.column) for s in diag.trace] == [(2, 5), (2, 1), (3, 1)]


def test_the_message_says_where_the_value_was_born_in_plain_words() -> None:
    source = (
        b"from dispatch_lint import runtime as dispatch\n"
        b"\n"
        b"def main():\n"
        b"    cap = dispatch.Capture()\n"
        b"    x = dispatch.placeholder((2,), device=cap)\n"
        b"    x.backward()\n"
        b"\n"
        b"def export():\n"
        b"    name = 'autodiff:capture'\n"
        b"    dev = dispatch.device(name)\n"
    )
    result = analyze([SourceFile("train.py", source)])
    messages = {d.line: d.message for d in result.diagnostics}
    assert "; `x` was born at line 5 from `dispatch.placeholder((2,), device=cap)`." in messages[6]
    assert "; the value was born at line 10 from the string `'autodiff:capture'` by" in messages[10]


def test_parsing_skips_node_validation_only_while_it_parses() -> None:
    import libcst as cst

    from dispatch_lint.analyzer.parse import parse_module

    source = GOOD.source + b"y = [a for a in (1, 2) if a]\n"
    assert parse_module(source).deep_equals(cst.parse_module(source))
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")  # a hand-built node is still checked afterwards


def _capture_backward_file() -> SourceFile:
    return SourceFile(
        "train.py",
        b"from dispatch_lint import runtime as dispatch\n"
        b'dispatch.ones((2,), device="capture").backward()\n',
    )


def test_the_analysis_leaves_the_garbage_collector_as_it_found_it() -> None:
    import gc

    before = gc.get_threshold()
    result = analyze([_capture_backward_file()])
    assert [d.rule for d in result.diagnostics] == ["DL001"]
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_objects_the_caller_froze_stay_frozen() -> None:
    import gc

    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        analyze([_capture_backward_file()])
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_a_caller_that_collects_rarely_already_is_left_as_it_is() -> None:
    import gc

    before = gc.get_threshold()
    gc.set_threshold(100_000, *before[1:])
    try:
        analyze([_capture_backward_file()])
        assert gc.get_freeze_count() == 0
        assert gc.get_threshold() == (100_000, *before[1:])
    finally:
        gc.set_threshold(*before)
