"""Every rule's own examples run through the engine, and the registry's contract with the CLI."""

from __future__ import annotations

import pytest

from dispatch_lint.analyzer.engine import SourceFile, analyze
from dispatch_lint.catalog import RULES
from dispatch_lint.rules import ALL_RULES, Rule, get_rule

EXAMPLES = [
    (rule_class, kind, index)
    for rule_class in ALL_RULES
    for kind in ("VALID", "INVALID")
    for index in range(len(getattr(rule_class, kind)))
]


def flagged_lines(rule_class: type[Rule], source: str) -> list[int]:
    result = analyze([SourceFile("example.py", source.encode())])
    assert not result.errors
    return sorted(d.line for d in result.diagnostics if d.rule == rule_class.spec.id)


@pytest.mark.parametrize(
    ("rule_class", "kind", "index"),
    EXAMPLES,
    ids=[f"{r.spec.id}-{k}-{i}" for r, k, i in EXAMPLES],
)
def test_examples(rule_class: type[Rule], kind: str, index: int) -> None:
    source = getattr(rule_class, kind)[index]
    marked = [n for n, line in enumerate(source.splitlines(), start=1) if "# expect" in line]
    if kind == "VALID":
        assert flagged_lines(rule_class, source) == []
    else:
        assert marked, "an INVALID example marks the line it expects"
        assert flagged_lines(rule_class, source) == marked


def test_registry_follows_the_catalog() -> None:
    assert [r.spec.id for r in ALL_RULES] == [spec.id for spec in RULES]
    for rule_class in ALL_RULES:
        assert get_rule(rule_class.spec.id) is rule_class
        assert rule_class.VALID and rule_class.INVALID
        doc = rule_class.__doc__ or ""
        assert "Example" in doc and "Fix" in doc
        assert rule_class.spec.runtime_error in doc or rule_class.spec.id == "DL000"


def test_unknown_rule_id_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="DL999"):
        get_rule("DL999")


def test_messages_start_with_the_catalog_sentence_and_name_the_fix() -> None:
    for rule_class in ALL_RULES[1:]:
        source = rule_class.INVALID[0]
        result = analyze([SourceFile("example.py", source.encode())])
        diag = next(d for d in result.diagnostics if d.rule == rule_class.spec.id)
        assert diag.message.startswith(rule_class.spec.message)
        assert rule_class.spec.fix in diag.message
        assert (diag.name, diag.severity) == (rule_class.spec.name, rule_class.spec.severity)
