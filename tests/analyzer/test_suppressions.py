"""``# noqa`` and ``# dispatch-lint: disable...`` comments, and which of them are unused."""

from __future__ import annotations

import pytest

from dispatch_lint.analyzer.diagnostics import Diagnostic
from dispatch_lint.analyzer.suppressions import apply_suppressions, find_suppressions


def _finding(line: int, rule: str = "DL001") -> Diagnostic:
    return Diagnostic("m.py", line, 1, rule, "name", "error", "message", line, 2)


def _kept(source: str, *findings: Diagnostic) -> list[tuple[int, str]]:
    outcome = apply_suppressions(findings, find_suppressions(source.encode()))
    return [(d.line, d.rule) for d in outcome.kept]


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa",
        "# noqa: DL001",
        "# NOQA:DL001",
        "# noqa: E501, DL001",
        "# noqa: DL00",
        "# dispatch-lint: disable=DL001",
        "# dispatch-lint: disable=DL002,DL001",
        "# type: ignore  # noqa: DL001",
    ],
)
def test_comment_on_the_line_silences_the_finding(comment: str) -> None:
    assert _kept(f"x = 1\ny.backward()  {comment}\n", _finding(2)) == []


@pytest.mark.parametrize(
    "comment",
    ["# noqa: DL002", "# noqa: E501", "# dispatch-lint: disable=DL003", "# no qa"],
)
def test_other_codes_do_not_silence(comment: str) -> None:
    assert _kept(f"y.backward()  {comment}\n", _finding(1)) == [(1, "DL001")]


def test_disable_next_line_silences_only_the_next_line() -> None:
    source = "# dispatch-lint: disable-next-line=DL001\ny.backward()\nz.backward()\n"
    assert _kept(source, _finding(2), _finding(3)) == [(3, "DL001")]


def test_noqa_inside_a_string_is_not_a_comment() -> None:
    assert _kept("y.backward(); s = '# noqa'\n", _finding(1)) == [(1, "DL001")]


def test_syntax_errors_are_never_silenced() -> None:
    assert _kept("x = (  # noqa\n", _finding(1, "DL000")) == [(1, "DL000")]


def test_unused_suppressions_name_the_code_that_silenced_nothing() -> None:
    source = (
        "a.backward()  # noqa: DL001, DL002\n"
        "b = 1  # noqa\n"
        "# dispatch-lint: disable-next-line=DL003\n"
        "c = 2\n"
        "d = 3  # noqa: E501\n"
    )
    outcome = apply_suppressions([_finding(1)], find_suppressions(source.encode()))
    assert outcome.kept == ()
    assert [(s.line, s.column, code) for s, code in outcome.unused] == [
        (1, 15, "DL002"),
        (2, 8, None),
        (3, 1, "DL003"),
    ]


def test_source_that_does_not_tokenize_keeps_the_comments_found_before() -> None:
    source = "y.backward()  # noqa: DL001\nx = '''\n"
    assert _kept(source, _finding(1)) == []
    assert find_suppressions(b"\x00\xff garbage") == ()
