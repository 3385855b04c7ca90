"""One analysis of one function body (or module top level) in one context.

:class:`FunctionRun` walks the body statement by statement over libcst nodes, keeping for each
local name a :class:`~dispatch_lint.analyzer.values.Value` (a may-set of atoms with their
traces). Each concept of the language lives in a module of its own, as a part of this class:
:mod:`.statements` (blocks, branches, loops, try, with, assignment, imports),
:mod:`.patterns` (``match``),
:mod:`.expressions` (names, attributes, operators), :mod:`.conditions` (truth and guards),
:mod:`.containers`, :mod:`.functions` (closures), :mod:`.classes` (instances and fields),
:mod:`.calls` (calls and summaries), :mod:`.views` (the order of effects), :mod:`.runtime` (the dispatch runtime's API) and
:mod:`.externals` (builtins and other libraries). Every place where a rule could fire records
an :class:`~dispatch_lint.analyzer.events.Event`; events over symbolic parameters are kept for
the function's summary.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from itertools import product
from typing import TYPE_CHECKING

import libcst as cst

from dispatch_lint.analyzer.bounds import MAX_ASSUMED, MAX_PENDING
from dispatch_lint.analyzer.dataflow.calls import GUARD_EVENTS, Calls
from dispatch_lint.analyzer.dataflow.classes import Instances
from dispatch_lint.analyzer.dataflow.conditions import Conditions
from dispatch_lint.analyzer.dataflow.containers import Containers
from dispatch_lint.analyzer.dataflow.expressions import Expressions
from dispatch_lint.analyzer.dataflow.externals import ExternalCalls
from dispatch_lint.analyzer.dataflow.functions import Closures
from dispatch_lint.analyzer.dataflow.patterns import Patterns
from dispatch_lint.analyzer.dataflow.runtime import RuntimeCalls
from dispatch_lint.analyzer.dataflow.state import Slot, State
from dispatch_lint.analyzer.dataflow.statements import LoopFrame, Statements
from dispatch_lint.analyzer.dataflow.traces import TraceCalls, TraceState
from dispatch_lint.analyzer.dataflow.views import CONSTRUCTORS, Views, is_data
from dispatch_lint.analyzer.events import Event
from dispatch_lint.analyzer.facts import FuncInfo
from dispatch_lint.analyzer.values import (
    EMPTY,
    UNKNOWN,
    Box,
    Closure,
    Const,
    Partial,
    Ref,
    Step,
    Sym,
    Tup,
    Value,
    either_assumed,
    enters_via,
    limit_nesting,
)

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.analyzer.dataflow.calls import GeneratorCall
    from dispatch_lint.analyzer.dataflow.program import Program
    from dispatch_lint.analyzer.summaries import Summary


#: how an expression ended its path: (called a function that always raises, the statement
#: where a finding always raises); see FunctionRun.take_end
PathEnd = tuple[bool, "cst.CSTNode | None"]

#: what the constant names evaluate to (values are immutable: made once)
_CONSTANT_VALUES = {name: Value.of(Const(value))
                    for name, value in (("True", True), ("False", False), ("None", None))}
#: a name bound nowhere in the checked code is a builtin's: its value, made on first use
_BUILTINS: dict[str, Value] = {}

#: Events at which the runtime raises when a rule is broken (a user's sink may not).
_RAISING_EVENTS = frozenset({"autodiff", "move", "lift", "read", "autodiff_device", "binop",
                             "no_capture", "training", "ensure_not_capture"})
#: Rules whose runtime error is a warning outside strict mode: the program goes on.
_WARNING_RULES = frozenset({"DL004"})
#: Beyond this many combinations of atoms a sink is not judged certain (it may not raise).
_MAX_COMBINATIONS = 16

#: combinations of operand values one binary operation keeps for its callers (see
#: keep_pending); past them, the last one joins the rest
_BINOP_VARIANTS = 3
#: The events kept in up to _BINOP_VARIANTS versions (see FunctionRun.keep_pending).
_VARIANT_EVENTS = frozenset({"binop", "autodiff"})

#: what a note says when a value was cut at the nesting bounds
NESTING_REDUCED = "closures or tuples nested too deeply became unknown"


class FunctionRun(Statements, Patterns, Expressions, Conditions, Containers, Closures, Instances,
                  Calls, Views, RuntimeCalls, ExternalCalls, TraceCalls):
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
        #: the parameters whose objects are being asked for now (see Calls.objects_of)
        self.objects_asked: set[Sym] = set()
        #: what this run stored into a parameter's container under a constant key (the
        #: caller sees it through the effect): a later read of that key here gives it too
        self.param_items: dict[tuple[Sym, object], Value] = {}
        self.returns: Value = EMPTY
        #: what each `return` gave with what its path assumed of the caller's values (see
        #: Summary.ret_parts); None once a return's path assumed nothing
        self.return_parts: list[tuple[frozenset[Value], Value]] = []
        #: some path reached a `return` (or a `yield`: calling a generator function returns)
        self.returned = False
        #: the body yields: calling the function makes a generator
        self.yielded = False
        #: on each normal exit: the guard the returned value is (see Summary.guard), and the
        #: parameters known not to be capture on every exit so far (None: no exit yet)
        self.exit_guards: set[tuple[int, str, bool, str] | None] = set()
        self.sanitized: set[int] | None = None
        #: the sinks on a caller's values that every normal exit passed (see Summary.passes)
        self.exit_passed: frozenset[int] | None = None
        #: the summaries each call expression of this run instantiated when last evaluated,
        #: by the node's id: what a guard or sanitizer helper says is read from them
        self.called: dict[int, list[tuple[FuncInfo, Summary]]] = {}
        #: the calls (their nodes' ids) with a `**mapping` whose keys are not all known: the
        #: keywords they pass are more than the known ones (see Containers.keyword_items)
        self.open_keywords: set[int] = set()
        #: the expression being evaluated called a function that always raises: the path ends
        #: after the statement (see :meth:`Statements.run_block`)
        self.diverged = False
        self.loops: list[LoopFrame] = []
        #: `for` loops run item by item around the statement (see Statements.unrolled_loop)
        self.unrolled_loops = 0
        #: the states a capture test's branches ended in, for run_block to go on from each
        #: for a few statements (set by stmt_If)
        self.split_states: list[State] | None = None
        #: the split is an unpacking's alternatives (see Statements.partitioned_tuples)
        self.split_unpacked = False
        #: the item of each unrolled loop or comprehension being run, outermost first: a
        #: capture device made there is another device in each item (see make_device)
        self.iteration: tuple[int, ...] = ()
        #: local names last assigned a field or a dict's item (`loss = self.pending`,
        #: `loss = state["pending"]`): a guard on the name narrows that slot too while both
        #: hold the same values (see Conditions.narrow_alias)
        self.field_aliases: dict[str, cst.Attribute | cst.Subscript] = {}
        #: local names last assigned what iterates over other names' items (`values =
        #: list(args) + list(kwargs.values())`), with what each of them held then: a
        #: quantified guard on the name's items proves theirs (see Conditions.item_sources)
        self.item_aliases: dict[str, tuple[cst.BaseExpression,
                                           tuple[tuple[str, Value], ...]]] = {}
        self.declared_global: set[str] = set()
        self.declared_nonlocal: set[str] = set()
        #: set when this run is a traced analysis (:mod:`.traces`)
        self.trace: TraceState | None = None
        self._ambient: Value | None = None
        #: the statement that raises on every path through it (a sink of this function's
        #: that always raises, or a tracer that reached a sink in a traced analysis): the
        #: path ends there, while this function's callers go on as they will once it is
        #: fixed (see ``run_block``)
        self.raised_at: cst.CSTNode | None = None
        #: objects that existed before the trace this run is in (what is stored in them
        #: outlives it): read from globals, captured by a traced closure, a traced receiver
        self.outside: set[object] = set()
        #: objects this run makes (see Summary.fresh)
        self.made: set[object] = set()
        self.training_depth = 0
        #: the capture tensors this run (or a function it called) made on a capture device
        #: of its own (see Summary.made_capture)
        self.made_capture: Value = EMPTY
        #: what the caller's key picked from a table, and the step that says so (see
        #: Containers.picked_by_caller)
        self.picked: dict[object, Step] = {}
        #: events over symbolic atoms, for the summary
        self.pending: dict[tuple[object, ...], Event] = {}
        #: the statement's state while it runs: calls read and extend its view of the heap
        self.path: State | None = None
        #: a module top level, class body or constructor: its writes are where the program
        #: starts from (the heap); other functions' writes are seen after them (:mod:`.views`)
        self.writes_initial = is_module or (func is not None and func.name in CONSTRUCTORS)
        self.import_time = is_module
        #: what the caller's path had written to the slots this function reads
        self.entry_view: dict[Slot, tuple[Value, bool]] = {}
        #: the slots this function (and its callees) read, and the view it ends with
        self.slot_reads: set[Slot] = set()
        self.exit_view: dict[Slot, tuple[Value, bool]] | None = None
        self.declared_nonlocal: set[str] = set()
        #: calling an object a parameter holds (see Calls.call_supplied)
        self.calling_supplied = False
        #: a method analysed for the class's instances at large, no caller's: no call passed
        #: it the receiver, so what came of the receiver's fields is found here (see emit)
        self.at_large = False
        #: parameters compared with None where only the argument could decide
        self.none_tests: set[int] = set()
        #: generators that calls made, with the function and closure that made each
        self.generators: dict[Box, tuple[FuncInfo, Closure | None]] = {}
        #: the calls that made them, as made (see Statements.leave)
        self.generator_calls: dict[Box, GeneratorCall] = {}
        #: a generator resumed past its yield: the caller's view where it resumes, taken
        #: in place of the view of its call at the yield (see Expressions.expr_Yield)
        self.resume_view: dict[Slot, tuple[Value, bool]] | None = None
        #: lists ``sorted()`` made of known items: those items, in an order not known
        self.permuted: dict[Box, tuple[Value, ...]] = {}
        #: containers read from the receiver's fields, with the step where they came in
        self.via_boxes: dict[Box, Step] = {}
        #: try bodies being run whose handlers catch a guard's CaptureGuardError
        self.guards_caught = 0
        #: heap writes through symbolic atoms, for the summary: (target, projection, value)
        self.effects: dict[tuple[object, ...], tuple[Value, object, Value]] = {}
        #: the work of this run so far: statements run, calls applied, the events and
        #: effects and atoms they instantiated (bounded by MAX_UNIT_WORK)
        self.work = 0

    @contextmanager
    def in_item(self, index: int) -> Iterator[None]:
        """Run what follows as item ``index`` of an unrolled loop or comprehension (see
        :attr:`iteration`)."""
        outer = self.iteration
        self.iteration = (*outer, index)
        try:
            yield
        finally:
            self.iteration = outer

    def take_end(self) -> PathEnd:
        """How the expression evaluated so far ends the path (it called a function that
        always raises, or a finding always raises in it), cleared for what is evaluated
        next as one of several alternatives (see :meth:`join_ends`)."""
        end = (self.diverged, self.raised_at)
        self.diverged, self.raised_at = False, None
        return end

    def join_ends(self, before: PathEnd, alternatives: Sequence[PathEnd]) -> None:
        """After alternatives of which one runs (the branches of an if-expression, the
        functions a call may call), each of which ended the path as given: the path ends
        when every one of them ends it, and otherwise as it did ``before`` them."""
        diverged, raised_at = before
        if alternatives and all(d or r is not None for d, r in alternatives):
            if all(d for d, _ in alternatives):
                diverged = True
            elif raised_at is None:
                raised_at = self.anchor
        self.diverged, self.raised_at = diverged, raised_at

    @contextmanager
    def assuming(self, assumed: frozenset[Value]) -> Iterator[None]:
        """Evaluate what follows on a path that assumed ``assumed`` (what a test on the way
        there let through, see Conditions.assume): its sinks' events carry it."""
        path = self.path
        if path is None:
            yield
            return
        outer, path.assumed = path.assumed, assumed
        try:
            yield
        finally:
            path.assumed = outer

    @contextmanager
    def may_not_run(self) -> Iterator[None]:
        """Evaluate what may not run at all (the right side of ``and``/``or``, the element
        of a comprehension over what may be empty): a raise in it does not end the path."""
        before = (self.diverged, self.raised_at)
        try:
            yield
        finally:
            self.diverged, self.raised_at = before

    def step(self, node: cst.CSTNode, message: str) -> Step:
        return Step(self.file, node, message, self.anchor)

    def emit(self, kind: str, values: tuple[Value, ...], detail: str, node: cst.CSTNode,
             sink: str, rule: str = "") -> None:
        """Record an event at ``node``: concrete parts are judged now, symbolic parts kept."""
        # values a method's receiver, a closure's free names or the caller's key picked
        # (see Step.via) are judged where the caller supplied them
        if self.guards_caught and kind in GUARD_EVENTS:
            return  # the guard raises into a handler that catches it: the guard at work
        receiver = self.supplied_by_caller
        event = Event(kind, values, detail, self.file, node, self.step(node, sink), rule,
                      self.anchor, via=self.owner if receiver else None,
                      frames=((self.owner, self.file, node, self.anchor),),
                      after=self.path.passed if self.path is not None else frozenset(),
                      assumes=self.path.assumed if self.path is not None else frozenset())
        found, deferred = self.program.judge(event, fresh=None, defer=receiver)
        if found and self.trace is not None:
            self.note_raised(event)
        elif found and self.always_raises(event):
            # the runtime raises here on every path: what follows it never runs (DESIGN.md:
            # code after a statement that always raises is dead); callers go on as they will
            # once the finding is fixed, as after a traced sink
            self.raised_at = self.anchor
        # Parameters of this function, or of the one a closure's free names came from, or
        # the receiver's fields: the caller that knows them judges the event again (a traced
        # analysis keeps those over its caller's parameters too: a lax body's closure).
        if deferred or any(isinstance(a, Sym) for v in values for a in v):
            self.keep_pending(event)
            self.note_passed(event)

    def note_passed(self, event: Event) -> None:
        """This path passed ``event``'s sink, judged at each call: what follows it is not
        reached at a call where it always raises."""
        if self.path is not None and event.kind in _RAISING_EVENTS:
            self.path.passed = self.path.passed | {id(event.sink.node)}

    def always_raises(self, event: Event) -> bool:
        """Whether the runtime raises at ``event`` whatever each of its values turns out to
        be: every combination of their atoms breaks a rule whose error is raised (DL004 only
        warns by default; what a user sink does is not known)."""
        if event.kind not in _RAISING_EVENTS or (
                self.func is not None and self.func.key in self.program.recursive):
            return False
        combinations = 1
        for value in event.values:
            combinations *= len(value)
        if not combinations or combinations > _MAX_COMBINATIONS:
            return False
        for atoms in product(*event.values):
            single = replace(event, values=tuple(
                Value.of(atom, value.trace(atom)) for atom, value in zip(atoms, event.values)))
            if not any(hit.rule not in _WARNING_RULES for hit in self.program.rules_judge(single)):
                return False
        return True

    def keep_pending(self, event: Event) -> None:
        """Keep ``event`` for the summary: one per sink and place, its values joined."""
        key = (event.kind, id(event.sink.node), id(event.node), event.rule)
        if event.kind in _VARIANT_EVENTS:
            # which operand values go together matters (DL008 tells two operands that chose
            # their device on one path from a clash): a loop's first round (`total = xs[0]`
            # plus each item) is kept beside the later rounds, not joined into them; so does
            # what an autodiff call gets in the first round (DL006 needs a tensor certainly
            # on a plain device: `w = w.require_grad()` before `w` is rewrapped)
            for variant in range(_BINOP_VARIANTS - 1):
                old = self.pending.get((*key, variant))
                if old is None or old.values == event.values:
                    break
            else:
                variant = _BINOP_VARIANTS - 1
            key = (*key, variant)
        old = self.pending.get(key)
        if old is None:
            if len(self.pending) < MAX_PENDING:
                self.pending[key] = event
        elif old.values != event.values:
            values = tuple(a.join(b) for a, b in zip(old.values, event.values))
            self.pending[key] = replace(old, values=values, after=old.after & event.after,
                                        assumes=either_assumed(old.assumes, event.assumes,
                                                               MAX_ASSUMED))
        elif old.after != event.after or old.assumes != event.assumes:
            self.pending[key] = replace(old, after=old.after & event.after,
                                        assumes=either_assumed(old.assumes, event.assumes,
                                                               MAX_ASSUMED))

    def lookup(self, name: str, state: State, node: cst.CSTNode) -> Value:
        if name in _CONSTANT_VALUES:
            return _CONSTANT_VALUES[name]
        if name in self.declared_nonlocal:
            cell = self.cell_of(name)
            held = self.slot_value(cell, self.captured.get(name), state) if cell else (
                self.captured.get(name))
            return held or Value.of(UNKNOWN)
        if name in state.env and name not in self.declared_global:
            return self.fresh_closures(state.env[name], state)
        if name in self.captured:
            cell = self.cell_of(name)
            if cell is not None:  # a sibling closure may have written it since
                return self.slot_value(cell, self.captured[name], state) or Value.of(UNKNOWN)
            value = self.captured[name]
            if self.receives_from_caller and self.class_info is None and is_data(value):
                # a free name: whoever made and passed the closure supplied it
                value = value.map_traces(Step(self.file, node, f"free name `{name}`",
                                              self.anchor, via=self.owner))
            return value
        value = self.program.global_value(self.file, name)
        if value is not None:
            if not self.is_module:
                value = self.slot_value(("g", self.file, name), value, state,
                                        record=is_data(value)) or value
                if self.program.traced:
                    self.note_outside(value)
            return self.fresh_closures(value, state)
        builtin = _BUILTINS.get(name)
        if builtin is None:
            builtin = _BUILTINS[name] = Value.of(Ref("builtins." + name))
        return builtin

    def bind(self, name: str, value: Value, state: State, node: cst.CSTNode) -> None:
        if self.program.traced and (name in self.declared_global or (
                name in self.declared_nonlocal and self.trace is not None)):
            kind = "global" if name in self.declared_global else "nonlocal"
            value = self.note_store(None, value, node, f"{kind} `{name}`")
        self.set_name(name, value.map_traces(self.step(node, f"assigned to `{name}`")), state)

    def set_name(self, name: str, value: Value, state: State) -> None:
        """Bind ``name``; module-level names and ``global`` names are also heap slots that
        the module's functions (and other modules) read (a function's write to a global
        is seen after it, on its path: see :mod:`.views`)."""
        if self.is_module:
            self.program.write(("g", self.file, name), value)
        elif name in self.declared_global:
            if self.writes_initial:
                self.program.write(("g", self.file, name), self.concrete_part(value))
            else:
                self.write_slot(("g", self.file, name), value, state)
            return
        elif name in self.declared_nonlocal:
            cell = self.cell_of(name)
            if cell is not None:
                self.write_slot(cell, value, state)
            return
        if state.env.get(name) is not None:
            prefix = name + "."
            for key in [k for k in state.env if k.startswith(prefix)]:
                del state.env[key]  # `x = ...` forgets what `x.attr = ...` stored
        state.env[name] = value

    def cell_of(self, name: str) -> Slot | None:
        """The slot of ``name`` when it is a variable of an enclosing function that a
        ``nonlocal`` statement lets nested functions write."""
        parent = self.func.parent if self.func is not None else None
        if parent is None or not self.program.is_cell(parent.key, name):
            return None
        return ("cell", parent.key, name)

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

    def star_import(self, module: str, state: State) -> None:
        """``from module import *``: its names are read through the link the program keeps
        (:meth:`~.program.Program.star_import`); the names bound before it that it rebinds
        are dropped from the path, so that reads after it see the module's."""
        source = self.program.star_import(self.file, module)
        if source is None or not self.is_module:
            return
        self.work += len(state.env)
        rebound = {name for name in state.env if "." not in name
                   and not name.startswith("_") and self.program.binds(source, name)}
        if rebound:
            for key in [k for k in state.env if k.split(".", 1)[0] in rebound]:
                del state.env[key]

    def concrete_part(self, value: Value) -> Value:
        """The atoms of ``value`` that mean the same in every calling context."""
        return value.filter(lambda a: not self.is_symbolic(a))

    def is_symbolic(self, atom: object) -> bool:
        if isinstance(atom, Sym):
            return atom.owner == self.owner
        if isinstance(atom, (Tup, Closure)):
            return self.owner in atom.parameters_of
        if isinstance(atom, Partial):
            return any(self.is_symbolic(a) for v in (atom.func, *atom.args,
                                                     *(v for _, v in atom.kwargs)) for a in v)
        return False

    def keep_effect(self, target: Value, proj: object, value: Value) -> None:
        """A heap write that depends on the calling context: replayed at each call. Every
        write to a container this run made is one: each call makes its own (see
        Summary.boxes_made_by), filled by these."""
        if any(self.is_symbolic(a) for a in target) or any(
                self.is_symbolic(a) for a in value) or any(
                isinstance(a, Box) and a.site.owner == self.site_owner for a in target):
            key = (target, proj)
            old = self.effects.get(key)
            if old is not None:
                self.effects[key] = (target, proj, old[2].join(value))
            elif len(self.effects) < MAX_PENDING:
                self.effects[key] = (target, proj, value)

    @property
    def receives_from_caller(self) -> bool:
        """A method (its receiver) or closure (its free names): values its caller supplied
        besides the arguments (see ``Event.via``)."""
        return not self.is_module and self.class_info is None and (
            self.self_value is not None or bool(self.captured))

    @property
    def supplied_by_caller(self) -> bool:
        """Whether values here may have come from a caller besides the arguments that the
        events name as theirs (a receiver, free names, or a calling context): the events of
        this run then carry its owner as ``Event.via``."""
        return (self.receives_from_caller and not self.at_large) or bool(self.param_context)

    def receives(self, atom: object) -> bool:
        """Whether ``atom`` is this method's receiver, as its caller passed it."""
        return self.self_value is not None and atom in self.self_value and not self.is_module

    def passed_on(self, value: Value) -> bool:
        """Whether ``value`` came from this function's caller: a parameter, the receiver, or
        a field of the receiver."""
        return any(isinstance(a, Sym) or self.receives(a) or enters_via(t, self.owner)
                   for a, t in value.items())
