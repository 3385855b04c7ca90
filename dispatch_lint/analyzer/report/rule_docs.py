"""Rule documentation for ``--explain``, ``--list-rules`` and SARIF rule metadata.

The rule classes of :mod:`dispatch_lint.rules` carry the long form (their docstring); the
catalog carries the one-line facts. A rule without a class yet is documented from the catalog
alone, so the docs never disappear while a rule is being written.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass

from dispatch_lint.catalog import RULES, RULES_BY_ID, RULES_BY_NAME, RuleSpec

__all__ = ["RuleDoc", "all_rule_docs", "lookup_rule", "plain_text", "rule_doc"]


@dataclass(frozen=True)
class RuleDoc:
    """A rule's catalog entry and its long explanation (plain text, several paragraphs)."""

    spec: RuleSpec
    explanation: str


def lookup_rule(key: str) -> RuleSpec | None:
    """The rule named by ``key``: an id (any case, ``dl001``) or a name (``capture-backward``)."""
    return RULES_BY_ID.get(key.strip().upper()) or RULES_BY_NAME.get(
        key.strip().lower()
    )


def _rule_class_doc(rule_id: str) -> str | None:
    try:
        from dispatch_lint import rules
    except Exception:  # noqa: BLE001 - a broken rules package must not hide the catalog docs
        return None
    get_rule = getattr(rules, "get_rule", None)
    if get_rule is None:
        return None
    try:
        rule_class = get_rule(rule_id)
    except (KeyError, LookupError):
        return None
    doc = inspect.getdoc(rule_class)
    return plain_text(doc.strip()) if doc else None


#: reStructuredText's inline literals (``x``) and literal-block markers ("Example::").
_LITERAL = re.compile(r"``(.+?)``", re.S)
_BLOCK_MARKER = re.compile(r"::$", re.M)


def plain_text(doc: str) -> str:
    """A docstring written in reStructuredText as plain text for a terminal: inline
    literals lose their backticks, ``Example::`` becomes ``Example:``."""
    return _BLOCK_MARKER.sub(":", _LITERAL.sub(r"\1", doc))


def _catalog_explanation(spec: RuleSpec) -> str:
    return (
        f"Flags: {spec.summary}.\n\n"
        f'At run time this raises {spec.runtime_error}: "{spec.message} ...".\n\n'
        f"Fix: {spec.fix}."
    )


def rule_doc(spec: RuleSpec) -> RuleDoc:
    """The documentation of ``spec``'s rule: its class docstring when the rule exists."""
    return RuleDoc(spec, _rule_class_doc(spec.id) or _catalog_explanation(spec))


def all_rule_docs() -> tuple[RuleDoc, ...]:
    """Every rule of the catalog, in id order."""
    return tuple(rule_doc(spec) for spec in RULES)
