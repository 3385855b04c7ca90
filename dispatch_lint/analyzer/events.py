"""Sink events: the facts the interpreter records and the rules judge.

The interpreter never decides what is a finding. At every place where a rule could fire
(an autodiff call, a move, a data read, an ``Autodiff(...)`` device, a binary operation, a call
into a ``@guards.no_capture`` function or ``guards.ensure_not_capture``, a user sink) it
records an :class:`Event` with the abstract values involved. Events over concrete atoms go to the rules at once; events over a
summary's symbolic parameters are kept in the summary and re-checked at each call, with the
arguments substituted, so that a helper is judged once per calling context.
"""

from __future__ import annotations

from dataclasses import field

import libcst as cst

from dispatch_lint.analyzer.frozen import frozen
from dispatch_lint.analyzer.values import Step, Trace, Value

__all__ = ["Event", "Hit", "SINK_TEXT", "TRACED_BIRTH"]


@frozen
class Event:
    """One sink reached by some values.

    ``kind`` is one of ``autodiff`` (values: receiver), ``move`` (receiver, target device),
    ``read`` (the value read), ``autodiff_device`` (the wrapped device), ``binop`` (left,
    right), ``no_capture`` (the arguments), ``training`` (a value inside
    ``guards.training()``), ``ensure_not_capture`` (the value the guard checks),
    ``user_sink`` (the argument; ``rule`` names the rule), and for traced frameworks
    ``concretize`` (a value that must be concrete; ``detail`` names the sink of the
    framework's model), ``subscript`` (the indexed object, the index or slice bound;
    ``detail`` is ``index`` or ``slice``) and ``escape`` (a value stored where it outlives
    its trace).
    ``detail`` names the operation as the user wrote it (``.backward()``, ``+``).
    ``file``/``node`` is where the finding is reported: the sink itself, or the outermost
    call that passed the value in. ``sink`` is the last trace step, in the callee's file.
    """

    kind: str
    values: tuple[Value, ...]
    detail: str
    file: int
    node: cst.CSTNode
    sink: Step
    rule: str = ""
    #: the statement whose code holds ``node`` (see ``Step.anchor``)
    anchor: cst.CSTNode | None = field(default=None, compare=False, repr=False)
    #: the function whose receiver's fields some values came from (see ``Step.via``): their
    #: findings are judged at the call that passed the receiver, out to the first caller
    #: that did not get it from its own caller
    via: object = field(default=None, compare=False, repr=False)
    #: where the event was, frame by frame from the sink outwards: (function, file, node,
    #: anchor); a finding about a tensor born in a callee is reported in that callee's frame
    frames: tuple[tuple[object, int, cst.CSTNode, cst.CSTNode | None], ...] = field(
        default=(), compare=False, repr=False)
    #: the sinks (their nodes' ids) every path to this one passed before it: when one of
    #: them raises at a call, this one is never reached there
    after: frozenset[int] = field(default=frozenset(), compare=False, repr=False)
    #: values of the caller's that every path to this sink found no tracer (State.assumed):
    #: at a call where one of them is certainly a tracer, the sink is never reached
    assumes: frozenset[Value] = field(default=frozenset(), compare=False, repr=False)


#: Stands in a ``Hit.what`` for the sink step's own words ("read by `t.item()`"): the
#: reporter fills it in, so no code is rendered for verdicts that never become diagnostics.
SINK_TEXT = "{sink}"


#: Every step where a traced value is born says this ("parameter `x` of `f()`, traced by
#: `jax.jit`"): the reporter words the origin of such a finding from that step.
TRACED_BIRTH = ", traced by `"


@frozen
class Hit:
    """A rule's verdict on one event: the offending atom(s), the trace that explains them
    (birth ... sink) and a sentence saying what happened (may hold ``SINK_TEXT``)."""

    rule: str
    culprits: tuple[object, ...]
    trace: Trace | None
    what: str
    #: what to do, when it is not the rule's fix of the catalog (a guard's finding, or the
    #: framework model's fix for its sink)
    help: str = ""
    #: the sentence the message starts with, when not the catalog's (a finding on another
    #: framework's values: its model words it)
    message: str = ""
