"""The base class of the rules: a catalog entry, its docs, its examples and its verdict.

A rule reads the events the data-flow analysis recorded (``dispatch_lint.analyzer.events``)
and decides which are findings. It never walks the syntax tree itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar

from dispatch_lint.analyzer.events import SINK_TEXT, Event, Hit
from dispatch_lint.analyzer.values import Dev, Ten, Trace, Value
from dispatch_lint.catalog import RuleSpec

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.analyzer.fixes import FixSite, Replacement

__all__ = ["Rule", "capture_tensors", "trace_to_sink"]


class Rule:
    """One rule of the catalog. Subclasses set ``spec``, ``events``, ``VALID`` and
    ``INVALID`` and implement :meth:`check` (and :meth:`fix` when the rule has an automatic
    fix); the docstring is what ``--explain`` prints."""

    spec: ClassVar[RuleSpec]
    #: the event kinds this rule judges
    events: ClassVar[frozenset[str]] = frozenset()
    #: snippets the rule must stay silent on
    VALID: ClassVar[tuple[str, ...]] = ()
    #: snippets the rule must flag, each on the line marked ``# expect``
    INVALID: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def check(cls, event: Event) -> Iterator[Hit]:
        """The findings of this rule on ``event`` (concrete atoms only)."""
        return iter(())

    @classmethod
    def fix(cls, hit: Hit, event: Event, site: FixSite) -> Replacement | None:
        """The automatic fix of the finding ``hit`` made of ``event``, or None (the default:
        the finding's help says what to do). Asked only for findings that are reported."""
        return None

    @classmethod
    def user_sink_hits(cls, event: Event) -> Iterator[Hit]:
        """A configured sink declared with this rule: flag capture tensors reaching it."""
        if event.kind == "user_sink" and event.rule == cls.spec.id:
            for atom, trace in capture_tensors(event.values[0]):
                yield Hit(cls.spec.id, (atom,), trace_to_sink(trace, event),
                          f"a capture tensor is {SINK_TEXT}")


def capture_tensors(value: Value) -> Iterator[tuple[Ten, Trace | None]]:
    """The atoms of ``value`` that are tensors on a capture device, with their traces."""
    for atom, trace in value.items():
        if isinstance(atom, Ten) and atom.dev.is_capture:
            yield atom, trace


def devices(value: Value) -> Iterator[tuple[Dev, Trace | None]]:
    for atom, trace in value.items():
        if isinstance(atom, Dev):
            yield atom, trace


def trace_to_sink(trace: Trace | None, event: Event) -> Trace:
    """The value's trace followed by the sink step."""
    return trace.then(event.sink) if trace is not None else Trace(event.sink)
