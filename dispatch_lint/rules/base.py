"""The base class of the rules: a catalog entry, its docs, its examples and its verdict.

A rule reads the events the data-flow analysis recorded (``dispatch_lint.analyzer.events``)
and decides which are findings. It never walks the syntax tree itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar

from dispatch_lint.analyzer.events import SINK_TEXT, Event, Hit
from dispatch_lint.analyzer.values import Dev, Ten, Trace, Traced, Tup, Value
from dispatch_lint.catalog import RuleSpec

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.analyzer.fixes import FixSite, Replacement

__all__ = ["Rule", "capture_tensors", "trace_to_sink", "traced_hit", "tracers"]


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
            for atom, trace in tracers(event.values[0]):
                from dispatch_lint.frameworks import get_model

                # the catalog's sentence names the dispatch runtime's values: the tracer's
                # framework words the finding
                yield Hit(cls.spec.id, (atom,), trace_to_sink(trace, event),
                          f"a traced value is {SINK_TEXT}",
                          message=get_model(atom.framework).message)
                return


def tracers(value: Value) -> Iterator[tuple[Traced, Trace | None]]:
    """The traced values (JAX tracers) in ``value`` and in its tuples: traced parameters and
    what was computed from them first, then what a trace made from other values."""
    found: list[tuple[Traced, Trace | None]] = []
    pending: list[tuple[Value, int]] = [(value, 0)]
    while pending:
        current, depth = pending.pop()
        for atom, trace in current.items():
            if isinstance(atom, Traced):
                found.append((atom, trace))
            elif isinstance(atom, Tup) and depth < 3:
                pending.extend((item, depth + 1) for item in atom.items)
    found.sort(key=lambda pair: pair[0].origin != "param")
    return iter(found)


def traced_hit(rule_id: str, event: Event, value: Value, operation: str,
               what: str) -> Hit | None:
    """The hit for the first tracer in ``value`` that the sink ``operation`` of its
    framework's model breaks on (None when there is none): ``what`` may say ``{error}``."""
    from dispatch_lint.frameworks import get_model

    for atom, trace in tracers(value):
        model = get_model(atom.framework)
        sink = model.sink(operation)
        if sink is None or sink.rule != rule_id or atom.kind not in sink.breaks:
            continue
        own = rule_id == "DL003"  # the catalog's DL003 sentence is the dispatch runtime's
        return Hit(rule_id, (atom,), trace_to_sink(trace, event),
                   what.replace("{error}", sink.error),
                   message=model.message if own else "", help=sink.fix if own else "")
    return None


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
