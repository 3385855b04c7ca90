"""One analysis of one function body (or module top level) in one context.

:class:`FunctionRun` walks the body statement by statement over libcst nodes, keeping for each
local name a :class:`~dispatch_lint.analyzer.values.Value` (a may-set of atoms with their
traces). Each concept of the language lives in a module of its own, as a part of this class:
:mod:`.statements` (blocks, branches, loops, try, with, match, assignment, imports),
:mod:`.expressions` (names, attributes, operators), :mod:`.conditions` (truth and guards),
:mod:`.containers`, :mod:`.functions` (closures), :mod:`.classes` (instances and fields),
:mod:`.calls` (calls and summaries), :mod:`.runtime` (the dispatch runtime's API) and
:mod:`.externals` (builtins and other libraries). Every place where a rule could fire records
an :class:`~dispatch_lint.analyzer.events.Event`; events over symbolic parameters are kept for
the function's summary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dispatch_lint.analyzer.bounds import MAX_PENDING
from dispatch_lint.analyzer.dataflow.calls import Calls
from dispatch_lint.analyzer.dataflow.classes import Instances
from dispatch_lint.analyzer.dataflow.conditions import Conditions
from dispatch_lint.analyzer.dataflow.containers import Containers
from dispatch_lint.analyzer.dataflow.expressions import Expressions
from dispatch_lint.analyzer.dataflow.externals import ExternalCalls
from dispatch_lint.analyzer.dataflow.functions import Closures
from dispatch_lint.analyzer.dataflow.runtime import RuntimeCalls
from dispatch_lint.analyzer.dataflow.state import State
from dispatch_lint.analyzer.dataflow.statements import LoopFrame, Statements
from dispatch_lint.analyzer.dataflow.traces import TraceCalls, TraceState
from dispatch_lint.analyzer.events import Event
from dispatch_lint.analyzer.facts import FuncInfo
from dispatch_lint.analyzer.values import (
    EMPTY,
    Closure,
    Const,
    Ref,
    Step,
    Sym,
    Tup,
    Value,
    limit_nesting,
)

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.analyzer.dataflow.program import Program


_CONSTANTS = {"True": True, "False": False, "None": None}

#: what a note says when a value was cut at the nesting bounds
NESTING_REDUCED = "closures or tuples nested too deeply became unknown"


class FunctionRun(Statements, Expressions, Conditions, Containers, Closures, Instances, Calls,
                  RuntimeCalls, ExternalCalls, TraceCalls):
    """One analysis of one function body (or module top level) in one context.

    ``params`` binds parameter names to values (symbolic :class:`Sym` atoms for a summary);
    ``captured`` holds a closure's free variables; ``is_module`` makes names module globals.
    """

    def __init__(
        self,
        program: Program,
        file: int,
        owner: object,
        func: FuncInfo | None,
        captured: dict[str, Value] | None = None,
        is_module: bool = False,
    ) -> None:
        self.program = program
        self.file = file
        self.owner = owner
        #: the statement being run: steps and events record it to be positioned through it
        self.anchor: cst.CSTNode | None = None
        #: what the sites of capture devices, containers and instances made here belong to:
        #: the summary being computed (a function in one calling context)
        self.site_owner: object = owner
        self.func = func
        self.captured = captured or {}
        self.is_module = is_module
        #: set while running a class body: functions defined there are its methods
        self.class_info: object = None
        #: a method's receiver (``self``), for ``super()``
        self.self_value: Value | None = None
        #: the objects of the checked tree the caller passes, per parameter: calls through
        #: parameters (``model.forward(x)``, ``fn(t)``) resolve to them
        self.param_context: dict[int, Value] = {}
        self.returns: Value = EMPTY
        self.loops: list[LoopFrame] = []
        self.declared_global: set[str] = set()
        self.declared_nonlocal: set[str] = set()
        #: set when this run is a traced analysis (:mod:`.traces`)
        self.trace: TraceState | None = None
        self._ambient: Value | None = None
        #: the statement that raises on every path through it (a tracer reached a sink that
        #: breaks on it, in a traced analysis): the path ends there (see ``run_block``)
        self.raised_at: cst.CSTNode | None = None
        #: objects that existed before the trace this run is in (what is stored in them
        #: outlives it): read from globals, captured by a traced closure, a traced receiver
        self.outside: set[object] = set()
        self.training_depth = 0
        #: events over symbolic atoms, for the summary
        self.pending: dict[tuple[object, ...], Event] = {}
        #: heap writes through symbolic atoms, for the summary: (target, projection, value)
        self.effects: dict[tuple[object, ...], tuple[Value, str, Value]] = {}
        #: the work of this run so far: statements run, calls applied, the events and
        #: effects and atoms they instantiated (bounded by MAX_UNIT_WORK)
        self.work = 0

    def step(self, node: cst.CSTNode, message: str) -> Step:
        return Step(self.file, node, message, self.anchor)

    def emit(self, kind: str, values: tuple[Value, ...], detail: str, node: cst.CSTNode,
             sink: str, rule: str = "") -> None:
        """Record an event at ``node``: concrete parts are judged now, symbolic parts kept."""
        event = Event(kind, values, detail, self.file, node, self.step(node, sink), rule,
                      self.anchor)
        if self.program.judge(event, fresh=None) and self.trace is not None:
            self.note_raised(event)
        if any(isinstance(a, Sym) and (a.owner == self.owner or self.trace is not None)
               for v in values for a in v):
            # a traced analysis keeps the events over its caller's parameters too (a lax
            # body's closure): the caller judges them where it traces the body
            self.keep_pending(event)

    def keep_pending(self, event: Event) -> None:
        """Keep ``event`` for the summary: one per sink and place, its values joined."""
        key = (event.kind, id(event.sink.node), id(event.node), event.rule)
        old = self.pending.get(key)
        if old is None:
            if len(self.pending) < MAX_PENDING:
                self.pending[key] = event
        elif old.values != event.values:
            values = tuple(a.join(b) for a, b in zip(old.values, event.values))
            self.pending[key] = Event(old.kind, values, old.detail, old.file, old.node,
                                      old.sink, old.rule, old.anchor)

    def lookup(self, name: str, state: State, node: cst.CSTNode) -> Value:
        if name in _CONSTANTS:
            return Value.of(Const(_CONSTANTS[name]))
        if name in state.env and name not in self.declared_global:
            return self.fresh_closures(state.env[name], state)
        if name in self.captured:
            return self.captured[name]
        value = self.program.global_value(self.file, name)
        if value is not None:
            if self.program.traced and not self.is_module:
                self.note_outside(value)
            return self.fresh_closures(value, state)
        return Value.of(Ref("builtins." + name))

    def bind(self, name: str, value: Value, state: State, node: cst.CSTNode) -> None:
        if self.program.traced and (name in self.declared_global or (
                name in self.declared_nonlocal and self.trace is not None)):
            kind = "global" if name in self.declared_global else "nonlocal"
            value = self.note_store(None, value, node, f"{kind} `{name}`")
        self.set_name(name, value.map_traces(self.step(node, f"assigned to `{name}`")), state)

    def set_name(self, name: str, value: Value, state: State) -> None:
        """Bind ``name``; module-level names and ``global`` names are also heap slots that
        the module's functions (and other modules) read."""
        if self.is_module:
            self.program.write(("g", self.file, name), value)
        elif name in self.declared_global:
            self.program.write(("g", self.file, name), value)
            return
        if state.env.get(name) is not None:
            prefix = name + "."
            for key in [k for k in state.env if k.startswith(prefix)]:
                del state.env[key]  # `x = ...` forgets what `x.attr = ...` stored
        state.env[name] = value

    def reduced(self, why: str) -> None:
        """Say that this run dropped precision at a bound (``why``: which, in a few words)."""
        self.program.note_reduced(self.file, self.func, why)

    def limited(self, atom: Closure | Tup) -> object:
        """``atom`` within the nesting bounds (:func:`~dispatch_lint.analyzer.values.
        limit_nesting`); limiting it is said."""
        limited = limit_nesting(atom)
        if limited is not atom:
            self.reduced(NESTING_REDUCED)
        return limited

    def set_names(self, values: dict[str, Value], state: State) -> None:
        """Bind many names at once (a star import) as :meth:`set_name` binds each: what
        ``x.attr = ...`` stored is forgotten for every rebound ``x`` in one pass over the
        locals, not one per name (a module star-importing thousands of names rebinds them
        all)."""
        self.work += len(values)
        locals_ = {name: value for name, value in values.items()
                   if self.is_module or name not in self.declared_global}
        for name, value in values.items():
            if self.is_module or name in self.declared_global:
                self.program.write(("g", self.file, name), value)
        rebound = {name for name in locals_ if state.env.get(name) is not None}
        if rebound:
            for key in [k for k in state.env if "." in k and k.split(".", 1)[0] in rebound]:
                del state.env[key]
        state.env.update(locals_)

    def concrete_part(self, value: Value) -> Value:
        """The atoms of ``value`` that mean the same in every calling context."""
        return value.filter(lambda a: not self.is_symbolic(a))

    def is_symbolic(self, atom: object) -> bool:
        if isinstance(atom, Sym):
            return atom.owner == self.owner
        if isinstance(atom, (Tup, Closure)):
            return self.owner in atom.parameters_of
        return False

    def keep_effect(self, target: Value, proj: str, value: Value) -> None:
        """A heap write that depends on the calling context: replayed at each call."""
        if any(self.is_symbolic(a) for a in target) or any(self.is_symbolic(a) for a in value):
            key = (target, proj)
            old = self.effects.get(key)
            if old is not None:
                self.effects[key] = (target, proj, old[2].join(value))
            elif len(self.effects) < MAX_PENDING:
                self.effects[key] = (target, proj, value)
