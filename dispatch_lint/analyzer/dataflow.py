"""The per-function abstract interpreter.

It walks one function body (or a module's top level, or a lambda) statement by statement over
libcst nodes, keeping for each local name a :class:`Value` (a may-set of atoms with their
traces). Branches fork and join the state, loops iterate to a fixpoint, paths that end in
``return``/``raise``/``break``/``continue`` stop, guards narrow. Every place where a rule could
fire records an :class:`Event`; calls into the checked tree go through the callee's summary
(:mod:`dispatch_lint.analyzer.summaries`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from dispatch_lint.analyzer import model
from dispatch_lint.analyzer.events import Event
from dispatch_lint.analyzer.values import (
    EMPTY,
    UNKNOWN,
    Box,
    Closure,
    Cls,
    Const,
    Dev,
    Inst,
    ProgramAtom,
    Ref,
    Site,
    Step,
    Str,
    Sym,
    Ten,
    Trace,
    Tup,
    Value,
    devices_clash,
    join_all,
)

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.analyzer.summaries import FuncInfo, Program

__all__ = ["FunctionRun", "State"]

#: Loops are iterated at most this often; the lattice is small, so this is rarely reached.
MAX_LOOP_ROUNDS = 6
#: Symbolic projections longer than this become unknown (keeps summaries finite).
MAX_PROJECTION = 3
#: Events and effects a summary keeps for its callers; generic code that passes parameters
#: everywhere would otherwise carry every callee's sinks up the whole call graph.
MAX_PENDING = 64
#: Tuples nested deeper than this are summarised as unknown.
MAX_TUPLE_DEPTH = 3

NUMPY_DEVICE = Dev("numpy")
#: Container methods that put their argument into the container.
CONTAINER_MUTATORS = frozenset(
    {"append", "add", "insert", "extend", "update", "setdefault", "appendleft"}
)


class State:
    """Local names and their values on one path."""

    __slots__ = ("env",)

    def __init__(self, env: dict[str, Value] | None = None) -> None:
        self.env: dict[str, Value] = env if env is not None else {}

    def copy(self) -> State:
        return State(dict(self.env))

    def join(self, other: State) -> State:
        env = dict(self.env)
        for name, value in other.env.items():
            mine = env.get(name)
            env[name] = value if mine is None else mine.join(value)
        return State(env)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.env == other.env

    __hash__ = None  # type: ignore[assignment]


def join_states(states: Sequence[State | None]) -> State | None:
    """The join of the live states (None when every path ended)."""
    live = [s for s in states if s is not None]
    if not live:
        return None
    out = live[0]
    for s in live[1:]:
        out = out.join(s)
    return out


def is_tensorish(atom: object) -> bool:
    return isinstance(atom, (Ten, Sym))


def has_tensor(value: Value) -> bool:
    return any(isinstance(a, (Ten, Sym)) for a in value)


def narrow_not_capture(value: Value) -> Value:
    """``value`` where a guard proved it is not a capture tensor."""
    out: dict[object, Trace | None] = {}
    for atom, trace in value.items():
        if isinstance(atom, Ten) and atom.dev.is_capture:
            continue
        if isinstance(atom, Sym) and not atom.real:
            atom = Sym(atom.param, atom.proj, True, atom.owner)
        out[atom] = trace
    return Value(out)


def narrow_capture(value: Value) -> Value:
    """``value`` where a guard proved it is a capture tensor."""
    return value.filter(
        lambda a: (isinstance(a, Ten) and a.dev.is_capture) or (isinstance(a, Sym) and not a.real)
    )


def operator_symbol(operator: cst.CSTNode) -> str:
    """``+`` for ``cst.Add()``, ``+=`` for ``cst.AddAssign()``, ``<`` for ``cst.LessThan()``."""
    token = getattr(operator, "_get_token", None)
    return token() if token is not None else type(operator).__name__


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def statements_of(body: cst.BaseSuite | Sequence[cst.CSTNode]) -> Sequence[cst.CSTNode]:
    """The statements of a suite, small statements of one-line suites included."""
    if isinstance(body, tuple):  # most often: a suite's own statements
        return body
    if isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite)):
        return body.body
    return body


class LoopFrame:
    __slots__ = ("breaks", "continues")

    def __init__(self) -> None:
        self.breaks: list[State] = []
        self.continues: list[State] = []


class FunctionRun:
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
        self.training_depth = 0
        #: events over symbolic atoms, for the summary
        self.pending: dict[tuple[object, ...], Event] = {}
        #: heap writes through symbolic atoms, for the summary: (target, projection, value)
        self.effects: dict[tuple[object, ...], tuple[Value, str, Value]] = {}

    # ------------------------------------------------------------------ steps and events

    def step(self, node: cst.CSTNode, message: str) -> Step:
        return Step(self.file, node, message, self.anchor)

    def emit(self, kind: str, values: tuple[Value, ...], detail: str, node: cst.CSTNode,
             sink: str, rule: str = "") -> None:
        """Record an event at ``node``: concrete parts are judged now, symbolic parts kept."""
        event = Event(kind, values, detail, self.file, node, self.step(node, sink), rule,
                      self.anchor)
        self.program.judge(event, fresh=None)
        if any(isinstance(a, Sym) and a.owner == self.owner for v in values for a in v):
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

    # ------------------------------------------------------------------------ names

    def lookup(self, name: str, state: State, node: cst.CSTNode) -> Value:
        if name in _CONSTANTS:
            return Value.of(Const(_CONSTANTS[name]))
        if name in state.env and name not in self.declared_global:
            return self.fresh_closures(state.env[name], state)
        if name in self.captured:
            return self.captured[name]
        value = self.program.global_value(self.file, name)
        if value is not None:
            return self.fresh_closures(value, state)
        return Value.of(Ref("builtins." + name))

    def fresh_closures(self, value: Value, state: State) -> Value:
        """Closures read by name capture the current values of their free variables."""
        for atom in value:  # a loop, not any(): this runs for every name read
            if isinstance(atom, Closure) and not atom.captured:
                break
        else:
            return value
        out: dict[object, Trace | None] = {}
        for atom, trace in value.items():
            if isinstance(atom, Closure) and not atom.captured:
                free = self.program.free_names(atom.key)
                captured = tuple(
                    (n, _flat(state.env[n])) for n in sorted(free) if n in state.env
                ) + tuple((n, _flat(self.captured[n])) for n in sorted(free)
                          if n not in state.env and n in self.captured)
                atom = Closure(atom.key, captured or (("", EMPTY),), atom.no_capture)
            out[atom] = trace
        return Value(out)

    def bind(self, name: str, value: Value, state: State, node: cst.CSTNode) -> None:
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

    # ----------------------------------------------------------------------- blocks

    def run_block(self, body: cst.BaseSuite | Sequence[cst.CSTNode], state: State | None
                  ) -> State | None:
        for stmt in statements_of(body):
            if state is None:
                return None  # dead code: statements after return/raise/break/continue
            self.anchor = stmt
            state = self.run_statement(stmt, state)
        return state

    def run_statement(self, stmt: cst.CSTNode, state: State) -> State | None:
        method = getattr(self, "stmt_" + type(stmt).__name__, None)
        if method is None:
            return state
        return method(stmt, state)

    def stmt_SimpleStatementLine(self, stmt: cst.SimpleStatementLine, state: State
                                 ) -> State | None:
        return self.run_block(stmt.body, state)

    def stmt_Expr(self, stmt: cst.Expr, state: State) -> State:
        self.eval(stmt.value, state)
        return state

    def stmt_Assign(self, stmt: cst.Assign, state: State) -> State:
        value = self.eval(stmt.value, state)
        for target in stmt.targets:
            self.assign(target.target, value, state, stmt.value)
        return state

    def stmt_AnnAssign(self, stmt: cst.AnnAssign, state: State) -> State:
        if stmt.value is not None:
            self.assign(stmt.target, self.eval(stmt.value, state), state, stmt.value)
        return state

    def stmt_AugAssign(self, stmt: cst.AugAssign, state: State) -> State:
        left = self.eval(stmt.target, state)
        right = self.eval(stmt.value, state)
        op = operator_symbol(stmt.operator)
        self.assign(stmt.target, self.binop(left, right, stmt, op), state, stmt)
        return state

    def stmt_Return(self, stmt: cst.Return, state: State) -> None:
        if stmt.value is not None:
            value = self.eval(stmt.value, state)
            self.returns = self.returns.join(value.map_traces(self.step(stmt, "returned")))

    def stmt_Raise(self, stmt: cst.Raise, state: State) -> None:
        if stmt.exc is not None:
            self.eval(stmt.exc, state)

    def stmt_Break(self, stmt: cst.Break, state: State) -> None:
        if self.loops:
            self.loops[-1].breaks.append(state)

    def stmt_Continue(self, stmt: cst.Continue, state: State) -> None:
        if self.loops:
            self.loops[-1].continues.append(state)

    def stmt_Assert(self, stmt: cst.Assert, state: State) -> State | None:
        true_state, _ = self.condition(stmt.test, state)
        return true_state

    def stmt_Global(self, stmt: cst.Global, state: State) -> State:
        for item in stmt.names:
            self.declared_global.add(item.name.value)
        return state

    def stmt_Del(self, stmt: cst.Del, state: State) -> State:
        if isinstance(stmt.target, cst.Name):
            state.env.pop(stmt.target.value, None)
        return state

    def stmt_Import(self, stmt: cst.Import, state: State) -> State:
        for alias in stmt.names:
            full = dotted_name(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.bind_import(alias.asname.name.value, full, state, stmt)
            else:
                top = full.split(".")[0]
                self.bind_import(top, top, state, stmt)
        return state

    def stmt_ImportFrom(self, stmt: cst.ImportFrom, state: State) -> State:
        base = self.program.absolute_module(self.file, stmt)
        if base is None or isinstance(stmt.names, cst.ImportStar):
            if base is not None:
                for name, value in self.program.star_names(base).items():
                    self.set_name(name, value, state)
            return state
        for alias in stmt.names:
            name = dotted_name(alias.name) or ""
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.bind_import(local, f"{base}.{name}" if base else name, state, stmt)
        return state

    def bind_import(self, local: str, qualname: str, state: State, node: cst.CSTNode) -> None:
        value = self.program.resolve(qualname)
        if value is None:
            value = Value.of(Ref(qualname))
        self.set_name(local, value, state)

    def stmt_If(self, stmt: cst.If, state: State) -> State | None:
        true_state, false_state = self.condition(stmt.test, state)
        if is_constant_false(stmt.test):
            true_state = None
        after_true = self.run_block(stmt.body.body, true_state)
        if stmt.orelse is None:
            after_false = false_state
        elif isinstance(stmt.orelse, cst.If):
            after_false = self.stmt_If(stmt.orelse, false_state) if false_state else None
        else:
            after_false = self.run_block(stmt.orelse.body.body, false_state)
        return join_states([after_true, after_false])

    def stmt_While(self, stmt: cst.While, state: State) -> State | None:
        infinite = is_constant_true(stmt.test)
        return self.loop(stmt, state, None, stmt.test, infinite)

    def stmt_For(self, stmt: cst.For, state: State) -> State | None:
        elements = self.elements(self.eval(stmt.iter, state))
        return self.loop(stmt, state, (stmt.target, elements), None, False)

    def loop(self, stmt: cst.For | cst.While, state: State,
             target: tuple[cst.BaseAssignTargetExpression, Value] | None,
             test: cst.BaseExpression | None, infinite: bool) -> State | None:
        head = state
        exit_state: State | None = None
        frame = LoopFrame()
        for _ in range(MAX_LOOP_ROUNDS):
            frame = LoopFrame()
            if test is not None:
                body_in, exit_state = self.condition(test, head)
                if infinite:
                    exit_state = None
            else:
                body_in, exit_state = head.copy(), head
                assert target is not None
                self.assign(target[0], target[1], body_in, target[0])
            self.loops.append(frame)
            body_out = self.run_block(stmt.body.body, body_in) if body_in else None
            self.loops.pop()
            new_head = join_states([head, body_out, *frame.continues])
            assert new_head is not None
            if new_head == head:
                break
            head = new_head
        if stmt.orelse is not None and exit_state is not None:
            exit_state = self.run_block(stmt.orelse.body.body, exit_state)
        return join_states([exit_state, *frame.breaks])

    def stmt_Try(self, stmt: cst.Try | cst.TryStar, state: State) -> State | None:
        before = state.copy()
        after_body = self.run_block(stmt.body.body, state)
        handler_in = join_states([before, after_body])
        outs: list[State | None] = []
        if stmt.orelse is not None:
            outs.append(self.run_block(stmt.orelse.body.body, after_body))
        else:
            outs.append(after_body)
        for handler in stmt.handlers:
            entry = handler_in.copy() if handler_in else None
            if entry is not None and handler.type is not None:
                self.eval(handler.type, entry)
            if entry is not None and handler.name is not None and isinstance(
                handler.name.name, cst.Name
            ):
                entry.env[handler.name.name.value] = Value.of(UNKNOWN)
            outs.append(self.run_block(handler.body.body, entry))
        out = join_states(outs)
        if stmt.finalbody is not None:
            # The finally block runs on every path; paths that raised continue raising.
            final_in = out if out is not None else handler_in
            final_out = self.run_block(stmt.finalbody.body.body,
                                       final_in.copy() if final_in else None)
            return final_out if out is not None else None
        return out

    stmt_TryStar = stmt_Try

    def stmt_With(self, stmt: cst.With, state: State) -> State | None:
        training = False
        for item in stmt.items:
            value = self.eval(item.item, state)
            if isinstance(item.item, cst.Call) and self.is_runtime_call(item.item, "training",
                                                                         state):
                training = True
            if item.asname is not None:
                self.assign(item.asname.name, self.enter(value, item.item), state, item.item)
        if training:
            self.training_depth += 1
        try:
            return self.run_block(stmt.body.body, state)
        finally:
            if training:
                self.training_depth -= 1

    def enter(self, value: Value, node: cst.CSTNode) -> Value:
        """The value ``with ... as name`` binds."""
        out = EMPTY
        for atom, trace in value.items():
            if isinstance(atom, Inst):
                out = out.join(self.call_method(atom, "__enter__", (), {}, node,
                                                Value.of(atom, trace)))
            elif isinstance(atom, (Ten, Dev, Sym, Tup, Box)):
                out = out.join(Value.of(atom, trace))
            else:
                out = out.join(Value.of(UNKNOWN))
        return out or Value.of(UNKNOWN)

    def stmt_Match(self, stmt: cst.Match, state: State) -> State | None:
        subject = self.eval(stmt.subject, state)
        outs: list[State | None] = []
        rest: State | None = state
        for case in stmt.cases:
            if rest is None:
                break
            entry = rest.copy()
            self.bind_pattern(case.pattern, subject, entry)
            if case.guard is not None:
                entry, _ = self.condition(case.guard, entry)
            outs.append(self.run_block(case.body.body, entry))
            if is_irrefutable(case.pattern) and case.guard is None:
                rest = None
        outs.append(rest)
        return join_states(outs)

    def bind_pattern(self, pattern: cst.MatchPattern, subject: Value, state: State) -> None:
        if isinstance(pattern, cst.MatchAs):
            if pattern.pattern is not None:
                self.bind_pattern(pattern.pattern, subject, state)
            if pattern.name is not None:
                state.env[pattern.name.value] = subject
        elif isinstance(pattern, (cst.MatchSequence, cst.MatchList, cst.MatchTuple)):
            elems = self.elements(subject)
            for element in pattern.patterns:
                inner = element.value if isinstance(element, cst.MatchSequenceElement) else None
                if inner is not None:
                    self.bind_pattern(inner, elems, state)
                elif isinstance(element, cst.MatchStar) and element.name is not None:
                    state.env[element.name.value] = Value.of(UNKNOWN)
        elif isinstance(pattern, cst.MatchOr):
            for element in pattern.patterns:
                self.bind_pattern(element.pattern, subject, state)
        elif isinstance(pattern, cst.MatchMapping):
            for element in pattern.elements:
                key = element.key.evaluated_value if isinstance(element.key,
                                                                cst.SimpleString) else None
                self.bind_pattern(element.pattern, self.item(subject, key), state)
            if pattern.rest is not None:
                state.env[pattern.rest.value] = subject
        elif isinstance(pattern, cst.MatchClass):
            for node in _pattern_names(pattern):
                state.env[node] = Value.of(UNKNOWN)

    def stmt_FunctionDef(self, stmt: cst.FunctionDef, state: State) -> State:
        info = self.program.define_function(stmt, self, state)
        if info.kind != "setter":  # a property's setter keeps the property under its name
            self.set_name(stmt.name.value, self.program.function_value(info), state)
        return state

    def stmt_ClassDef(self, stmt: cst.ClassDef, state: State) -> State:
        info = self.program.define_class(stmt, self, state)
        self.set_name(stmt.name.value, Value.of(Cls(info.key)), state)
        return state

    # ------------------------------------------------------------------ assignment

    def assign(self, target: cst.BaseExpression, value: Value, state: State,
               node: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            self.bind(target.value, value, state, target)
        elif isinstance(target, (cst.Tuple, cst.List)):
            self.unpack(target, value, state)
        elif isinstance(target, cst.Attribute):
            obj = self.eval(target.value, state)
            stored = value.map_traces(self.step(target, "stored in `{code}`"))
            self.store_attr(obj, target.attr.value, stored)
            if isinstance(target.value, cst.Name):
                # `self.x = v` then `self.x` in the same body: exactly v (a strong update).
                state.env[f"{target.value.value}.{target.attr.value}"] = stored
        elif isinstance(target, cst.Subscript):
            obj = self.eval(target.value, state)
            key = self.subscript_key(target, state)
            self.store_item(obj, key, value.map_traces(
                self.step(target, "stored in `{code}`")))
        elif isinstance(target, cst.StarredElement):
            self.assign(target.value, value, state, node)

    def unpack(self, target: cst.Tuple | cst.List, value: Value, state: State) -> None:
        elements = target.elements
        starred = any(isinstance(e, cst.StarredElement) for e in elements)
        for index, element in enumerate(elements):
            part = EMPTY
            before_star = not any(isinstance(e, cst.StarredElement) for e in elements[:index + 1])
            for atom, trace in value.items():
                if isinstance(atom, Tup) and len(atom.items) == len(elements) and not starred or isinstance(atom, Tup) and before_star and index < len(atom.items):
                    part = part.join(atom.items[index])
                elif isinstance(atom, Box) and before_star:
                    part = part.join(self.program.box_item(atom, index))
                else:
                    part = part.join(self.elements(Value.of(atom, trace)))
            if isinstance(element, cst.StarredElement):
                box = self.new_box("list", element)
                self.program.write(("b", box.site), part)
                self.assign(element.value, Value.of(box), state, element)
            else:
                self.assign(element.value, part or Value.of(UNKNOWN), state, element)

    def store_attr(self, obj: Value, name: str, value: Value) -> None:
        for atom in obj:
            if isinstance(atom, Inst):
                self.program.write(self.program.field_key(atom, name),
                                   self.concrete_part(value))
                self.keep_effect(Value.of(atom), "attr:" + name, value)
            elif isinstance(atom, Cls):
                self.program.write(self.program.field_key(atom, name),
                                   self.concrete_part(value))
            elif isinstance(atom, Sym):
                self.keep_effect(Value.of(atom), "attr:" + name, value)
            elif isinstance(atom, Ref) and isinstance(atom.key, tuple) and atom.key[0] == "module":
                self.program.write(("g", atom.key[1], name), value)

    def store_item(self, obj: Value, key: object, value: Value) -> None:
        for atom in obj:
            if isinstance(atom, Box):
                self.program.write(("b", atom.site), self.box_part(atom, value))
                if key is not None:
                    self.program.write(("bk", atom.site, key), self.box_part(atom, value))
                    self.keep_effect(Value.of(atom), f"item:{key!r}", value)
                self.keep_effect(Value.of(atom), "elem", value)
            elif isinstance(atom, Sym):
                self.keep_effect(Value.of(atom), "elem", value)
            elif isinstance(atom, Inst):
                self.call_method(atom, "__setitem__", (Value.of(UNKNOWN), value), {}, None,
                                 Value.of(atom))

    def box_part(self, box: Box, value: Value) -> Value:
        """What a container made by this very run may hold: its symbolic atoms too (they mean
        the same everywhere this run reads them); other containers get the concrete part."""
        return value if box.site.owner == self.site_owner else self.concrete_part(value)

    def concrete_part(self, value: Value) -> Value:
        """The atoms of ``value`` that mean the same in every calling context."""
        return value.filter(lambda a: not self.is_symbolic(a))

    def is_symbolic(self, atom: object) -> bool:
        if isinstance(atom, Sym):
            return atom.owner == self.owner
        if isinstance(atom, Tup):
            return any(self.is_symbolic(a) for v in atom.items for a in v)
        if isinstance(atom, Closure):
            return any(self.is_symbolic(a) for _, v in atom.captured for a in v)
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

    def new_box(self, kind: str, node: cst.CSTNode) -> Box:
        return Box(kind, self.program.bounded(Site(self.file, id(node), self.site_owner)))

    # ------------------------------------------------------------------ conditions

    def condition(self, test: cst.BaseExpression, state: State
                  ) -> tuple[State | None, State | None]:
        """States where ``test`` is true and false; reading a tensor's truth is a data read."""
        value = self.eval(test, state)
        if has_tensor(value):
            self.emit("read", (value,), "condition", test,
                      "used as a condition: `{code}`")
        true_state = self.narrow(test, state.copy(), True)
        false_state = self.narrow(test, state.copy(), False)
        truth = self.truth(value)
        if truth is False or is_constant_false(test):
            true_state = None  # dead code: `if False:`, or a flag the caller passed
        if truth is True or is_constant_true(test):
            false_state = None
        return true_state, false_state

    def constants(self, value: Value) -> Value:
        """``value`` with this context's constant arguments in place of its parameters."""
        if not any(isinstance(a, Sym) for a in value):
            return value
        out = EMPTY
        for atom, trace in value.items():
            known = (
                self.param_context.get(atom.param)
                if isinstance(atom, Sym) and atom.owner == self.owner and not atom.proj
                else None
            )
            if known is not None and all(isinstance(a, (Const, Str)) for a in known):
                out = out.join(known)
            else:
                out = out.join(Value.of(atom, trace))
        return out

    def truth(self, value: Value) -> bool | None:
        """The truth of ``value`` when every atom agrees on it, else None."""
        truths = set()
        for atom in self.constants(value):
            if isinstance(atom, Const):
                truths.add(bool(atom.value))
            elif isinstance(atom, Str):
                truths.add(bool(atom.text))
            elif isinstance(atom, (Dev, Cls, Ref, ProgramAtom)):
                truths.add(True)
            else:
                return None
        return truths.pop() if len(truths) == 1 else None

    def narrow(self, test: cst.BaseExpression, state: State, truth: bool) -> State:
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self.narrow(test.expression, state, not truth)
        if isinstance(test, cst.BooleanOperation):
            if isinstance(test.operator, cst.And) and truth:
                return self.narrow(test.right, self.narrow(test.left, state, True), True)
            if isinstance(test.operator, cst.Or) and not truth:
                return self.narrow(test.right, self.narrow(test.left, state, False), False)
            return state
        subject = self.capture_test_subject(test, state)
        if subject is not None:
            name = dotted_name(subject)
            if name is not None and (name in state.env or "." in name):
                value = state.env[name] if name in state.env else self.eval_quiet(subject, state)
                state.env[name] = narrow_capture(value) if truth else narrow_not_capture(value)
        return state

    def capture_test_subject(self, test: cst.BaseExpression, state: State
                             ) -> cst.BaseExpression | None:
        """The name (``t``) or field (``self.t``) ``test`` checks for being a capture tensor,
        if it is such a check."""
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            comp = test.comparisons[0]
            if isinstance(comp.operator, (cst.Is, cst.Equal)) and dotted_name(
                comp.comparator) == "True":
                return self.capture_test_subject(test.left, state)
        if isinstance(test, cst.Attribute) and test.attr.value == "is_capture":
            if _is_narrowable(test.value):
                return test.value
        if isinstance(test, cst.Call) and test.args and _is_narrowable(test.args[0].value):
            if self.is_runtime_call(test, "is_capture", state):
                return test.args[0].value
        return None

    def is_runtime_call(self, call: cst.Call, name: str, state: State) -> bool:
        func = self.eval_quiet(call.func, state)
        return any(isinstance(a, Ref) and model.runtime_name(a.qualname) == name for a in func)

    def eval_quiet(self, node: cst.BaseExpression, state: State) -> Value:
        """Evaluate a callee expression (a name or attribute chain) without side effects."""
        if isinstance(node, cst.Name):
            return self.lookup(node.value, state, node)
        if isinstance(node, cst.Attribute):
            return self.attribute(self.eval_quiet(node.value, state), node.attr.value, node)
        return Value.of(UNKNOWN)

    # ------------------------------------------------------------------ expressions

    def eval(self, node: cst.BaseExpression, state: State) -> Value:
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            for child in node.children:
                if isinstance(child, cst.BaseExpression):
                    self.eval(child, state)
            return Value.of(UNKNOWN)
        return method(node, state)

    def expr_Name(self, node: cst.Name, state: State) -> Value:
        return self.lookup(node.value, state, node)

    def expr_SimpleString(self, node: cst.SimpleString, state: State) -> Value:
        if len(node.value) > 40:
            return Value.of(UNKNOWN)  # device names are short; docstrings are not
        text = _plain_string_value(node.value)
        if text is None:
            try:
                text = node.evaluated_value
            except Exception:  # noqa: BLE001 - odd literals are just unknown strings
                return Value.of(UNKNOWN)
        if isinstance(text, str) and len(text) < 40:
            return Value.of(Str(text))
        return Value.of(UNKNOWN)

    def expr_Integer(self, node: cst.Integer, state: State) -> Value:
        return Value.of(UNKNOWN)  # a leaf: nothing inside to evaluate

    expr_Float = expr_Imaginary = expr_Ellipsis = expr_Integer

    def expr_FormattedString(self, node: cst.FormattedString, state: State) -> Value:
        for part in node.parts:
            if isinstance(part, cst.FormattedStringExpression):
                value = self.eval(part.expression, state)
                if part.format_spec and has_tensor(value):
                    self.emit("read", (value,), "format", part,
                              "formatted with a format spec: `{code}`")
        return Value.of(UNKNOWN)

    def expr_Attribute(self, node: cst.Attribute, state: State) -> Value:
        if isinstance(node.value, cst.Name):
            local = state.env.get(f"{node.value.value}.{node.attr.value}")
            if local is not None:
                return local
        return self.attribute(self.eval(node.value, state), node.attr.value, node)

    def attribute(self, obj: Value, name: str, node: cst.CSTNode) -> Value:
        out = EMPTY
        for atom, trace in obj.items():
            out = out.join(self.attribute_of(atom, trace, name, node))
        return out or Value.of(UNKNOWN)

    def attribute_of(self, atom: object, trace: Trace | None, name: str,
                     node: cst.CSTNode) -> Value:
        if isinstance(atom, Ref):
            if isinstance(atom.key, tuple) and atom.key[0] == "super":
                return self.program.super_attribute(atom, name)
            if atom.key is not None and not (isinstance(atom.key, tuple)
                                             and atom.key[0] == "module"):
                return Value.of(UNKNOWN)
            qualname = f"{atom.qualname}.{name}"
            return self.program.resolve(qualname) or Value.of(Ref(qualname))
        if isinstance(atom, Ten):
            if name == "device":
                return Value.of(atom.dev, trace)
            if name in ("T", "mT"):
                return Value.of(atom, trace)
            return Value.of(UNKNOWN)
        if isinstance(atom, Sym):
            if name in model.NON_TENSOR_ATTRIBUTES:
                return Value.of(UNKNOWN)
            if name in ("T", "mT"):
                return Value.of(atom, trace)
            proj = "device" if name == "device" else "attr:" + name
            return self.project_sym(atom, trace, proj)
        if isinstance(atom, Inst):
            return self.program.instance_attribute(atom, name, self, node)
        if isinstance(atom, Cls):
            return self.program.class_attribute(atom, name, self)
        if isinstance(atom, Dev):
            if name == "inner" and atom.inner is not None:
                return Value.of(atom.inner, trace)
        return Value.of(UNKNOWN)

    def project_sym(self, atom: Sym, trace: Trace | None, proj: object) -> Value:
        if len(atom.proj) >= MAX_PROJECTION:
            return Value.of(UNKNOWN)
        return Value.of(Sym(atom.param, (*atom.proj, proj), atom.real and proj not in (
            "device",), atom.owner), trace)

    def subscript_key(self, node: cst.Subscript, state: State) -> object:
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return None
        index = node.slice[0].slice.value
        if isinstance(index, cst.Integer):
            return int(index.evaluated_value)
        if isinstance(index, cst.SimpleString):
            try:
                return index.evaluated_value
            except Exception:  # noqa: BLE001
                return None
        return None

    def expr_Subscript(self, node: cst.Subscript, state: State) -> Value:
        obj = self.eval(node.value, state)
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                self.eval(element.slice.value, state)
        return self.item(obj, self.subscript_key(node, state), node)

    def item(self, obj: Value, key: object, node: cst.CSTNode | None = None) -> Value:
        """``obj[key]`` (``key`` None when not a constant)."""
        out = EMPTY
        for atom, trace in obj.items():
            if isinstance(atom, Ten):
                out = out.join(Value.of(atom, trace))
            elif isinstance(atom, Tup):
                if isinstance(key, int) and -len(atom.items) <= key < len(atom.items):
                    out = out.join(atom.items[key])
                else:
                    out = out.join(join_all(atom.items))
            elif isinstance(atom, Box):
                out = out.join(self.program.box_item(atom, key))
            elif isinstance(atom, Sym):
                proj = "elem" if key is None else ("item", key)
                out = out.join(self.project_sym(atom, trace, proj))
            elif isinstance(atom, Inst):
                out = out.join(self.call_method(atom, "__getitem__", (Value.of(UNKNOWN),), {},
                                                node, Value.of(atom, trace)))
        return out or Value.of(UNKNOWN)

    def expr_Tuple(self, node: cst.Tuple, state: State) -> Value:
        if any(isinstance(e, cst.StarredElement) for e in node.elements):
            return self.container("list", node, [e.value for e in node.elements], state)
        items = tuple(self.eval(e.value, state) for e in node.elements)
        if tuple_depth(items) > MAX_TUPLE_DEPTH:
            return Value.of(UNKNOWN)
        return Value.of(Tup(items))

    def expr_List(self, node: cst.List, state: State) -> Value:
        return self.container("list", node, [e.value for e in node.elements], state)

    def expr_Set(self, node: cst.Set, state: State) -> Value:
        return self.container("set", node, [e.value for e in node.elements], state)

    def container(self, kind: str, node: cst.CSTNode, items: Sequence[cst.BaseExpression],
                  state: State) -> Value:
        box = self.new_box(kind, node)
        content = EMPTY
        for index, item in enumerate(items):
            value = self.eval(item, state)
            starred = isinstance(node, (cst.List, cst.Set, cst.Tuple)) and isinstance(
                node.elements[index], cst.StarredElement)
            if starred:
                value = self.elements(value)
            else:
                self.program.write(("bk", box.site, index), self.box_part(box, value))
                self.keep_effect(Value.of(box), f"item:{index!r}", value)
            content = content.join(value)
        self.program.write(("b", box.site), self.box_part(box, content))
        self.keep_effect(Value.of(box), "elem", content)
        return Value.of(box)

    def expr_Dict(self, node: cst.Dict, state: State) -> Value:
        box = self.new_box("dict", node)
        content = EMPTY
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                self.eval(element.key, state)
                value = self.eval(element.value, state)
                if isinstance(element.key, cst.SimpleString):
                    try:
                        key = element.key.evaluated_value
                        self.program.write(("bk", box.site, key), self.box_part(box, value))
                        self.keep_effect(Value.of(box), f"item:{key!r}", value)
                    except Exception:  # noqa: BLE001
                        pass
            else:
                value = self.elements(self.eval(element.value, state))
            content = content.join(value)
        self.program.write(("b", box.site), self.box_part(box, content))
        self.keep_effect(Value.of(box), "elem", content)
        return Value.of(box)

    def comprehension(self, node: cst.CSTNode, for_in: cst.CompFor, state: State) -> State:
        inner = state.copy()
        comp: cst.CompFor | None = for_in
        while comp is not None:
            elements = self.elements(self.eval(comp.iter, inner))
            self.assign(comp.target, elements, inner, comp.target)
            for cond in comp.ifs:
                narrowed, _ = self.condition(cond.test, inner)
                inner = narrowed if narrowed is not None else inner
            comp = comp.inner_for_in
        return inner

    def expr_ListComp(self, node: cst.ListComp, state: State) -> Value:
        inner = self.comprehension(node, node.for_in, state)
        return self.box_of("list", node, self.eval(node.elt, inner))

    def expr_SetComp(self, node: cst.SetComp, state: State) -> Value:
        inner = self.comprehension(node, node.for_in, state)
        return self.box_of("set", node, self.eval(node.elt, inner))

    def expr_GeneratorExp(self, node: cst.GeneratorExp, state: State) -> Value:
        inner = self.comprehension(node, node.for_in, state)
        return self.box_of("gen", node, self.eval(node.elt, inner))

    def expr_DictComp(self, node: cst.DictComp, state: State) -> Value:
        inner = self.comprehension(node, node.for_in, state)
        self.eval(node.key, inner)
        return self.box_of("dict", node, self.eval(node.value, inner))

    def box_of(self, kind: str, node: cst.CSTNode, content: Value) -> Value:
        box = self.new_box(kind, node)
        self.program.write(("b", box.site), self.box_part(box, content))
        self.keep_effect(Value.of(box), "elem", content)
        return Value.of(box)

    def expr_Lambda(self, node: cst.Lambda, state: State) -> Value:
        info = self.program.define_function(node, self, state)
        return self.fresh_closures(self.program.function_value(info), state)

    def expr_NamedExpr(self, node: cst.NamedExpr, state: State) -> Value:
        value = self.eval(node.value, state)
        self.assign(node.target, value, state, node)
        return value

    def expr_IfExp(self, node: cst.IfExp, state: State) -> Value:
        true_state, false_state = self.condition(node.test, state)
        values = []
        if true_state is not None:
            values.append(self.eval(node.body, true_state))
        if false_state is not None:
            values.append(self.eval(node.orelse, false_state))
        return join_all(values) or Value.of(UNKNOWN)

    def expr_Await(self, node: cst.Await, state: State) -> Value:
        return self.eval(node.expression, state)

    def expr_Yield(self, node: cst.Yield, state: State) -> Value:
        # A generator is modelled by what it yields: iterating it gives those values.
        if isinstance(node.value, cst.BaseExpression):
            value = self.eval(node.value, state)
            self.returns = self.returns.join(value.map_traces(self.step(node, "yielded")))
        return Value.of(UNKNOWN)

    def expr_UnaryOperation(self, node: cst.UnaryOperation, state: State) -> Value:
        value = self.eval(node.expression, state)
        if isinstance(node.operator, cst.Not):
            if has_tensor(value):
                self.emit("read", (value,), "condition", node,
                          "used as a condition: `{code}`")
            return Value.of(UNKNOWN)
        return value.filter(lambda a: isinstance(a, (Ten, Sym))) or Value.of(UNKNOWN)

    def expr_BooleanOperation(self, node: cst.BooleanOperation, state: State) -> Value:
        left = self.eval(node.left, state)
        if has_tensor(left):
            self.emit("read", (left,), "condition", node.left,
                      "used as a condition: `{code}`")
        right_state = self.narrow(node.left, state.copy(), isinstance(node.operator, cst.And))
        right = self.eval(node.right, right_state)
        return left.join(right)

    def expr_BinaryOperation(self, node: cst.BinaryOperation, state: State) -> Value:
        left = self.eval(node.left, state)
        right = self.eval(node.right, state)
        if isinstance(node.operator, cst.Modulo) and any(isinstance(a, Str) for a in left):
            # printf-style formatting: numeric conversions read the value
            if any(_PRINTF_NUMERIC.search(a.text) for a in left if isinstance(a, Str)):
                self.read_arguments((right,), node)
            return Value.of(UNKNOWN)
        return self.binop(left, right, node, operator_symbol(node.operator))

    def expr_Comparison(self, node: cst.Comparison, state: State) -> Value:
        left = self.eval(node.left, state)
        result = EMPTY
        for index, comp in enumerate(node.comparisons):
            if index and has_tensor(result):
                # `a < b < c` is `(a < b) and ...`: the first result is used as a condition
                self.emit("read", (result,), "condition", node,
                          "used as a condition: `{code}`")
            right = self.eval(comp.comparator, state)
            known = self.compare_constants(left, right, comp.operator)
            if known is not None:
                result = result.join(Value.of(Const(known)))
            elif isinstance(comp.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
                result = result.join(Value.of(UNKNOWN))
            else:
                result = result.join(self.binop(left, right, node,
                                                 operator_symbol(comp.operator)))
            left = right
        return result or Value.of(UNKNOWN)

    def compare_constants(self, left: Value, right: Value, operator: cst.CSTNode
                          ) -> bool | None:
        """``x is None``, ``mode == "export"`` and the like, when both sides are known."""
        left, right = self.constants(left), self.constants(right)
        if not left or not right:
            return None
        if isinstance(operator, (cst.Is, cst.IsNot)) and right == Value.of(Const(None)):
            if all(a == Const(None) for a in left):
                same = True
            elif all(isinstance(a, (Dev, Ten, Str, Inst, Box, Tup, Ref, Cls, ProgramAtom))
                     or (isinstance(a, Const) and a.value is not None) for a in left):
                same = False
            else:
                return None
            return same if isinstance(operator, cst.Is) else not same
        if isinstance(operator, (cst.Equal, cst.NotEqual)):
            values = [{_literal(a) for a in side} for side in (left, right)]
            if any(None in side or len(side) != 1 for side in values):
                return None
            equal = values[0] == values[1]
            return equal if isinstance(operator, cst.Equal) else not equal
        return None

    def binop(self, left: Value, right: Value, node: cst.CSTNode, op: str) -> Value:
        """A tensor operation between two values: a ``binop`` event and the result tensor."""
        if has_tensor(left) and has_tensor(right):
            self.emit("binop", (left, right), op, node, "combined by `{code}`")
        lefts, rights = left.filter(is_tensorish), right.filter(is_tensorish)
        tensors = lefts.join(rights)
        if self.training_depth and has_tensor(tensors):
            self.emit("training", (tensors,), "op", node,
                      "used inside `guards.training()`: `{code}`")
        if not lefts or not rights:
            result = tensors  # with a scalar (or anything else): the tensor's device
        else:
            result = EMPTY
            for a, a_trace in lefts.items():
                for b, b_trace in rights.items():
                    result = result.join(self.combine(a, a_trace, b, b_trace))
        if not result:
            for side in (left, right):
                if any(isinstance(a, (Box, Tup)) for a in side):
                    return side  # list + list, tuple * n
        return result or Value.of(UNKNOWN)

    def combine(self, a: object, a_trace: Trace | None, b: object, b_trace: Trace | None
                ) -> Value:
        """The result of an operation on tensors ``a`` and ``b``; nothing when it raises."""
        if isinstance(a, Ten) and isinstance(b, Ten):
            if devices_clash(a.dev, b.dev):
                return EMPTY  # DeviceMismatchError: no result
            # Autodiff with plain of the same backend is tracked: the result is autodiff.
            keep, trace = (b, b_trace) if b.dev.is_autodiff and not a.dev.is_autodiff else (
                a, a_trace)
            return Value.of(keep, trace)
        if isinstance(a, Ten) and isinstance(b, Sym):
            return self.project_sym(b, b_trace, ("mix", a.dev))
        if isinstance(a, Sym) and isinstance(b, Ten):
            return self.project_sym(a, a_trace, ("mix", b.dev))
        if (isinstance(a, Sym) and isinstance(b, Sym) and a.owner == b.owner == self.owner
                and a != b and not _has_pairing(a) and not _has_pairing(b)):
            # two parameters: the caller's arguments decide whether the operation works
            return self.project_sym(a, a_trace, ("with", b))
        return Value.of(a, a_trace).join(Value.of(b, b_trace))

    # ------------------------------------------------------------------ calls

    def expr_Call(self, node: cst.Call, state: State) -> Value:
        args: list[Value] = []
        kwargs: dict[str, Value] = {}
        star: list[Value] = []
        for arg in node.args:
            value = self.eval(arg.value, state)
            if arg.star == "*":
                star.append(self.elements(value))
            elif arg.star == "**":
                star.append(EMPTY)
            elif arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        if star:
            args.append(join_all(star) or Value.of(UNKNOWN))
        func = node.func
        if isinstance(func, cst.Attribute):
            receiver = self.eval(func.value, state)
            result = self.call_attribute(receiver, func.attr.value, tuple(args), kwargs, node)
        else:
            callee = self.eval(func, state)
            result = self.call_value(callee, tuple(args), kwargs, node)
        self.narrow_after_call(node, state)
        return result

    def narrow_after_call(self, node: cst.Call, state: State) -> None:
        """``ensure_not_capture(t)`` raises for capture tensors: afterwards ``t`` is real."""
        if node.args and _is_narrowable(node.args[0].value):
            subject = node.args[0].value
            name = dotted_name(subject)
            if name is None or not self.is_runtime_call(node, "ensure_not_capture", state):
                return
            if name in state.env:
                state.env[name] = narrow_not_capture(state.env[name])
            elif "." in name:
                state.env[name] = narrow_not_capture(self.eval_quiet(subject, state))

    def call_attribute(self, receiver: Value, name: str, args: tuple[Value, ...],
                       kwargs: dict[str, Value], node: cst.Call) -> Value:
        out = EMPTY
        tensors = receiver.filter(is_tensorish)
        if name in CONTAINER_MUTATORS:
            # A parameter may be a container the caller owns: replay the write at each call.
            for atom, trace in tensors.items():
                if isinstance(atom, Sym):
                    out = out.join(self.box_method_on_param(atom, trace, name, args, node))
        if tensors and name not in CONTAINER_MUTATORS:
            out = out.join(self.tensor_method(tensors, name, args, kwargs, node))
        for atom, trace in receiver.items():
            if isinstance(atom, Sym):
                # a parameter holding an object of the checked tree: call its method
                objects = self.objects_of(atom, node)
                if objects:
                    out = out.join(self.call_attribute(objects, name, args, kwargs, node))
                continue
            if isinstance(atom, Ten):
                continue
            if isinstance(atom, Ref):
                out = out.join(self.call_value(self.attribute_of(atom, trace, name, node),
                                               args, kwargs, node))
            elif isinstance(atom, Inst):
                out = out.join(self.call_method(atom, name, args, kwargs, node,
                                                Value.of(atom, trace)))
            elif isinstance(atom, Cls):
                out = out.join(self.call_value(self.program.class_attribute(atom, name, self),
                                               args, kwargs, node))
            elif isinstance(atom, ProgramAtom) and name == "run":
                out = out.join(self.real_result(kwargs.get("device", args[1] if len(args) > 1
                                                           else None), node))
            elif isinstance(atom, Dev) and name in ("wrap", "from_inner") and atom.is_autodiff:
                out = out.join(Value.of(Ten(atom), trace))
            elif isinstance(atom, Box):
                out = out.join(self.box_method(atom, name, args, node))
            elif isinstance(atom, Str) and name == "format":
                if _FORMAT_SPEC.search(atom.text):
                    self.read_arguments((*args, *kwargs.values()), node)
                out = out.join(Value.of(UNKNOWN))
            else:
                out = out.join(Value.of(UNKNOWN))
        for atom, trace in receiver.items():
            if isinstance(atom, Sym) and name in ("items", "values", "get", "pop", "copy"):
                # a parameter may be a container: mappings' and lists' accessors
                elem = self.project_sym(atom, trace, "elem")
                if name == "items":
                    out = out.join(self.box_of("list", node, Value.of(Tup((Value.of(UNKNOWN),
                                                                           elem)))))
                elif name == "copy":
                    out = out.join(Value.of(atom, trace))
                else:
                    out = out.join(elem)
        return out or Value.of(UNKNOWN)

    def added_by(self, name: str, args: tuple[Value, ...], node: cst.Call) -> Value:
        """What ``container.<name>(*args)`` puts into the container."""
        if name in ("extend", "update"):
            added = self.elements(args[0]) if args else EMPTY
        else:
            added = args[-1] if args else EMPTY
        return added.map_traces(self.step(node, "added to a container: `{code}`"))

    def box_method_on_param(self, atom: Sym, trace: Trace | None, name: str,
                            args: tuple[Value, ...], node: cst.Call) -> Value:
        self.keep_effect(Value.of(atom, trace), "elem", self.added_by(name, args, node))
        return Value.of(UNKNOWN)

    def box_method(self, box: Box, name: str, args: tuple[Value, ...], node: cst.Call) -> Value:
        if name in CONTAINER_MUTATORS:
            added = self.added_by(name, args, node)
            self.program.write(("b", box.site), self.box_part(box, added))
            self.keep_effect(Value.of(box), "elem", added)
            return Value.of(UNKNOWN)
        if name in ("pop", "get", "popleft", "values", "copy", "items"):
            content = self.program.box_item(box, None)
            if name == "items":
                return self.box_of("list", node, Value.of(Tup((Value.of(UNKNOWN), content))))
            if name in ("values", "copy"):
                return Value.of(box)
            return content or Value.of(UNKNOWN)
        return Value.of(UNKNOWN)

    def tensor_method(self, tensors: Value, name: str, args: tuple[Value, ...],
                      kwargs: dict[str, Value], node: cst.Call) -> Value:
        detail = f".{name}()"
        if name in model.AUTODIFF_METHODS:
            self.emit("autodiff", (tensors,), detail, node, "`{code}` is called")
            if name == "backward":
                return Value.of(UNKNOWN)
            if name == "require_grad":
                return tensors
            return self.map_tensors(tensors, lambda d: d.inner or d, "inner")
        if name == "to_device":
            target_arg = args[0] if args else kwargs.get("device", EMPTY)
            target = self.as_device(target_arg, node)
            self.emit("move", (tensors, target), detail, node, "moved by `{code}`")
            out = EMPTY
            for atom, trace in tensors.items():
                for dev, dev_trace in target.items():
                    if isinstance(atom, Ten) and atom.dev.is_capture:
                        if dev == atom.dev:
                            out = out.join(Value.of(atom, trace))
                    elif isinstance(dev, Dev):
                        out = out.join(Value.of(Ten(dev), trace.then(self.step(
                            node, f"moved to {dev.describe()}")) if trace else dev_trace))
                    elif isinstance(dev, Sym):
                        out = out.join(self.project_sym(dev, dev_trace, "tensor"))
            return out or Value.of(UNKNOWN)
        if name in model.DATA_READ_METHODS:
            self.emit("read", (tensors,), detail, node, "read by `{code}`")
            return Value.of(UNKNOWN)
        if name in model.SAME_DEVICE_METHODS:
            for other in args:
                if has_tensor(other):
                    self.emit("binop", (tensors, other), detail, node,
                              "combined by `{code}`")
            return tensors
        if name in model.NON_TENSOR_ATTRIBUTES:
            return Value.of(UNKNOWN)
        # An unknown method: for a parameter it may be any object's method; give up quietly.
        return Value.of(UNKNOWN)

    def read_arguments(self, args: Sequence[Value], node: cst.CSTNode) -> None:
        """A formatting call reads the data of the tensors among ``args`` (and in tuples)."""
        for value in args:
            tensors = value.filter(is_tensorish)
            for atom in value:
                if isinstance(atom, Tup):
                    tensors = tensors.join(join_all(atom.items).filter(is_tensorish))
            if tensors:
                self.emit("read", (tensors,), "format", node, "formatted by `{code}`")

    def map_tensors(self, tensors: Value, change: object, proj: str) -> Value:
        out = EMPTY
        for atom, trace in tensors.items():
            if isinstance(atom, Ten):
                out = out.join(Value.of(Ten(change(atom.dev)), trace))  # type: ignore[operator]
            elif isinstance(atom, Sym):
                out = out.join(self.project_sym(atom, trace, proj))
        return out or Value.of(UNKNOWN)

    def call_method(self, inst: Inst, name: str, args: tuple[Value, ...],
                    kwargs: dict[str, Value], node: cst.CSTNode | None, receiver: Value) -> Value:
        func = self.program.find_method(inst.cls, name)
        if func is None:
            attr = self.program.instance_attribute(inst, name, self, node)
            if node is None or not isinstance(node, cst.Call):
                return Value.of(UNKNOWN)
            return self.call_value(attr.filter(lambda a: not isinstance(a, Inst)), args,
                                   kwargs, node)
        if node is None:
            return Value.of(UNKNOWN)
        return self.program.apply(func, self, receiver, args, kwargs, node)

    def call_value(self, callee: Value, args: tuple[Value, ...], kwargs: dict[str, Value],
                   node: cst.Call) -> Value:
        out = EMPTY
        for atom, trace in callee.items():
            out = out.join(self.call_atom(atom, trace, args, kwargs, node))
        return out or Value.of(UNKNOWN)

    def call_atom(self, atom: object, trace: Trace | None, args: tuple[Value, ...],
                  kwargs: dict[str, Value], node: cst.Call) -> Value:
        program = self.program
        if isinstance(atom, Ref):
            user = program.user_model_call(atom.qualname, self, args, kwargs, node)
            if user is not None:
                return user
            if atom.key is not None and not isinstance(atom.key, tuple):
                info = program.funcs.get(atom.key)
                if info is not None:
                    receiver = atom.bound if isinstance(atom.bound, Value) else None
                    return program.apply(info, self, receiver, args, kwargs, node)
                return Value.of(UNKNOWN)
            return self.call_api(atom.qualname, args, kwargs, node)
        if isinstance(atom, Closure):
            info = program.funcs.get(atom.key)
            if info is not None:
                return program.apply(info, self, None, args, kwargs, node, atom)
        if isinstance(atom, Cls):
            return program.instantiate(atom, self, args, kwargs, node)
        if isinstance(atom, Inst):
            return self.call_method(atom, "__call__", args, kwargs, node, Value.of(atom, trace))
        if isinstance(atom, Sym):
            objects = self.objects_of(atom, node)
            if objects:
                return self.call_value(objects, args, kwargs, node)
        return Value.of(UNKNOWN)

    def objects_of(self, atom: Sym, node: cst.CSTNode) -> Value:
        """The functions and objects of the checked tree a parameter holds in this calling
        context (they decide which methods its calls reach); EMPTY when unknown."""
        if atom.owner != self.owner or atom.param not in self.param_context:
            return EMPTY
        return self.program.project_all(self, self.param_context[atom.param], atom.proj, node
                                        ).filter(is_callable_object)

    # ------------------------------------------------------------------ the runtime API

    def call_api(self, qualname: str, args: tuple[Value, ...], kwargs: dict[str, Value],
                 node: cst.Call) -> Value:
        name = model.runtime_name(qualname)
        if name is None:
            return self.call_external(qualname, args, kwargs, node)
        if name in model.DEVICE_CLASSES:
            return Value.of(self.make_device(model.DEVICE_CLASSES[name], node),
                            Trace(self.step(node, "device made by `{code}`")))
        if name == "Autodiff":
            inner = self.as_device(args[0] if args else kwargs.get("inner", EMPTY), node)
            return self.autodiff_device(inner, node)
        if name == "device":
            made = self.as_device(args[0] if args else kwargs.get("name", EMPTY), node)
            out = EMPTY
            for atom, trace in made.items():
                # device(param): the caller's string becomes a device at the call.
                out = out.join(self.project_sym(atom, trace, "asdev") if isinstance(atom, Sym)
                               else Value.of(atom, trace))
            return out or Value.of(UNKNOWN)
        if name in model.CREATORS:
            return self.create_tensor(name, args, kwargs, node)
        if name == "ensure_not_capture":
            return narrow_not_capture(args[0]) if args else Value.of(UNKNOWN)
        if name in ("export",) or name == "from_json":
            return Value.of(ProgramAtom())
        if name == "replay":
            return self.real_result(kwargs.get("device", args[2] if len(args) > 2 else None),
                                    node)
        if name in model.SAME_DEVICE_FUNCTIONS and args:
            tensors = args[0].filter(is_tensorish)
            if len(args) > 1 and has_tensor(args[1]):
                self.emit("binop", (tensors, args[1]), name, node,
                          "combined by `{code}`")
            return tensors or Value.of(UNKNOWN)
        return Value.of(UNKNOWN)

    def call_external(self, qualname: str, args: tuple[Value, ...], kwargs: dict[str, Value],
                      node: cst.Call) -> Value:
        if qualname.startswith("builtins."):
            name = qualname[len("builtins."):]
            if name in model.DATA_READ_BUILTINS and args and has_tensor(args[0]):
                self.emit("read", (args[0].filter(is_tensorish),), f"{name}()", node,
                          "read by `{code}`")
                return Value.of(UNKNOWN)
            if name == "format" and len(args) > 1 and has_tensor(args[0]):
                self.emit("read", (args[0].filter(is_tensorish),), "format()", node,
                          "read by `{code}`")
                return Value.of(UNKNOWN)
            if name in ("list", "tuple", "sorted", "reversed", "iter", "set", "frozenset"):
                return self.box_of("list", node, self.elements(args[0]) if args else EMPTY)
            if name == "next" and args:
                return self.elements(args[0]) or Value.of(UNKNOWN)
            if name == "enumerate" and args:
                return self.box_of("list", node, Value.of(Tup((Value.of(UNKNOWN),
                                                               self.elements(args[0])))))
            if name == "zip" and args:
                return self.box_of("list", node, Value.of(Tup(tuple(
                    self.elements(a) or Value.of(UNKNOWN) for a in args))))
            if "key" in kwargs and args and name in ("max", "min", "sorted"):
                self.call_value(kwargs["key"], (self.elements(args[0]),), {}, node)
            if name in ("map", "filter") and len(args) > 1:
                result = self.call_value(args[0], (self.elements(args[1]),), {}, node)
                return self.box_of("list", node, result if name == "map" else
                                   self.elements(args[1]))
            if name in ("sum", "max", "min") and args:
                return self.elements(args[0]).filter(is_tensorish) or Value.of(UNKNOWN)
            if name == "getattr" and len(args) >= 2:
                names = [a.text for a in args[1] if isinstance(a, Str)]
                if len(names) == 1:
                    return self.attribute(args[0], names[0], node)
            if name == "super":
                return self.program.super_value(self)
            if name == "dict":
                return self.box_of("dict", node, join_all(kwargs.values()))
            return Value.of(UNKNOWN)
        if qualname in model.DATA_READ_FUNCTIONS and args and has_tensor(args[0]):
            self.emit("read", (args[0].filter(is_tensorish),), qualname.split(".")[-1] + "()",
                      node, "read by `{code}`")
        if qualname in ("functools.partial",) and args:
            return args[0]
        return Value.of(UNKNOWN)

    def make_device(self, kind: str, node: cst.CSTNode) -> Dev:
        if kind == "capture":
            return Dev("capture", site=self.program.bounded(
                Site(self.file, id(node), self.site_owner)))
        return Dev(kind)

    def as_device(self, value: Value, node: cst.CSTNode) -> Value:
        """The devices ``value`` denotes where a device is expected (strings included)."""
        out = EMPTY
        for atom, trace in value.items():
            if isinstance(atom, Dev):
                out = out.join(Value.of(atom, trace))
            elif isinstance(atom, Str) and atom.text in model.DEVICE_STRINGS:
                kinds = model.DEVICE_STRINGS[atom.text]
                step = self.step(node, f"device made from the string `{atom.text!r}` "
                                       "by `{code}`")
                birth = trace.then(step) if trace is not None else Trace(step)
                dev = self.make_device(kinds[-1], node)
                if len(kinds) == 2:
                    out = out.join(self.autodiff_device(Value.of(dev, birth), node))
                else:
                    out = out.join(Value.of(dev, birth))
            elif isinstance(atom, Sym):
                out = out.join(Value.of(atom, trace))
        return out

    def autodiff_device(self, inner: Value, node: cst.CSTNode) -> Value:
        devices = inner.filter(lambda a: isinstance(a, (Dev, Sym)))
        if devices:
            self.emit("autodiff_device", (devices,), "Autodiff", node,
                      "wrapped by `{code}`")
        out = EMPTY
        for atom, trace in devices.items():
            if isinstance(atom, Dev):
                out = out.join(Value.of(Dev("autodiff", inner=atom), trace))
            else:
                out = out.join(self.project_sym(atom, trace, "autodiff"))
        return out or Value.of(Dev("autodiff", inner=Dev("real")))

    def create_tensor(self, name: str, args: tuple[Value, ...], kwargs: dict[str, Value],
                      node: cst.Call) -> Value:
        position = model.CREATORS[name]
        device_node = _argument(node, "device", position)
        device_arg = kwargs.get("device")
        if device_arg is None and len(args) > position:
            device_arg = args[position]
        if device_node is None or is_constant_false(device_node):
            # No device (or device=None): NumPy(), or a fresh Capture() for a placeholder.
            kind = "capture" if name == "placeholder" else "numpy"
            devices = Value.of(self.make_device(kind, node))
        else:
            devices = self.as_device(device_arg or EMPTY, node)
            if not devices and name == "placeholder":
                devices = Value.of(self.make_device("capture", node))
        out = EMPTY
        birth = self.step(node, "born from `{code}`")
        for dev, trace in devices.items():
            if isinstance(dev, Dev):
                if self.training_depth and dev.is_capture:
                    self.emit("training", (Value.of(Ten(dev), Trace(birth)),), "create", node,
                              "created inside `guards.training()`: `{code}`")
                out = out.join(Value.of(Ten(dev), trace.then(birth) if trace else Trace(birth)))
            elif isinstance(dev, Sym):
                out = out.join(self.project_sym(dev, trace, "tensor"))
        return out or Value.of(UNKNOWN)

    def real_result(self, device: Value | None, node: cst.CSTNode) -> Value:
        """The result of ``Program.run`` / ``replay``: real tensors on ``device``."""
        step = self.step(node, "real result of `{code}`")
        devices = self.as_device(device, node) if device is not None else Value.of(NUMPY_DEVICE)
        out = EMPTY
        for dev in devices:
            if isinstance(dev, Dev) and not dev.is_capture:
                out = out.join(Value.of(Ten(dev), Trace(step)))
        return out or Value.of(Ten(Dev("real")), Trace(step))

    # ------------------------------------------------------------------ iteration

    def elements(self, value: Value) -> Value:
        """What iterating over ``value`` gives."""
        out = EMPTY
        for atom, trace in value.items():
            if isinstance(atom, Ten):
                out = out.join(Value.of(atom, trace))
            elif isinstance(atom, Tup):
                out = out.join(join_all(atom.items))
            elif isinstance(atom, Box):
                out = out.join(self.program.box_item(atom, None))
            elif isinstance(atom, Sym):
                out = out.join(self.project_sym(atom, trace, "elem"))
            elif isinstance(atom, Inst):
                out = out.join(self.call_method(atom, "__iter__", (), {}, None,
                                                Value.of(atom, trace)))
            else:
                out = out.join(Value.of(UNKNOWN))
        return out or Value.of(UNKNOWN)


#: printf conversions that read a number (``%s`` and ``%r`` only print the placeholder)
_PRINTF_NUMERIC = re.compile(r"%[-+ #0]*[\d*]*(?:\.[\d*]+)?[diouxXeEfFgGc]")
#: ``str.format`` fields with a format spec (``{:.3f}``, ``{0:>8}``)
_FORMAT_SPEC = re.compile(r"\{[^{}:]*:[^{}]+\}")


def is_callable_object(atom: object) -> bool:
    """Atoms whose calls the analysis can follow: instances, classes, functions, closures."""
    return isinstance(atom, (Inst, Cls, Closure)) or (
        isinstance(atom, Ref) and atom.key is not None and not isinstance(atom.key, tuple)
    )


_CONSTANTS = {"True": True, "False": False, "None": None}


def _flat(value: Value) -> Value:
    """A captured value without the captures of closures inside it: closures capturing
    closures would otherwise nest deeper at every round."""
    if not any(isinstance(a, Closure) and a.captured for a in value):
        return value
    return Value({
        (Closure(a.key, (), a.no_capture) if isinstance(a, Closure) else a): t
        for a, t in value.items()
    })


def _plain_string_value(literal: str) -> str | None:
    """The value of a string literal without prefix, escapes or carriage returns (most
    literals: the text between its quotes), else None; ``literal_eval`` would compile it."""
    if literal[0] not in "'\"" or "\\" in literal or "\r" in literal:
        return None
    quotes = 3 if len(literal) >= 6 and literal[:3] in ("'''", '"""') else 1
    return literal[quotes:-quotes]


def _has_pairing(atom: Sym) -> bool:
    """Whether ``atom`` already pairs two parameters (pairs of pairs would never end)."""
    return any(isinstance(p, tuple) and p[0] == "with" for p in atom.proj)


def _literal(atom: object) -> object:
    """The Python value of a constant atom (wrapped, so that None means unknown)."""
    if isinstance(atom, Const):
        return ("const", atom.value)
    if isinstance(atom, Str):
        return ("str", atom.text)
    return None


def _is_narrowable(node: cst.BaseExpression) -> bool:
    """A guard can narrow a local name or a field of one (``t``, ``self.t``)."""
    return isinstance(node, cst.Name) or (
        isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)
    )


def _argument(call: cst.Call, keyword: str, position: int) -> cst.BaseExpression | None:
    """The expression passed as ``keyword`` (or at ``position``) in ``call``."""
    positional = 0
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value == keyword:
                return arg.value
        elif not arg.star:
            if positional == position:
                return arg.value
            positional += 1
    return None


def tuple_depth(items: tuple[Value, ...]) -> int:
    depth = 1
    for value in items:
        for atom in value:
            if isinstance(atom, Tup):
                depth = max(depth, 1 + tuple_depth(atom.items))
    return depth


def is_constant_false(test: cst.BaseExpression) -> bool:
    if isinstance(test, cst.Name):
        return test.value in ("False", "None")
    if isinstance(test, cst.Integer):
        return test.value in ("0",)
    return False


def is_constant_true(test: cst.BaseExpression) -> bool:
    if isinstance(test, cst.Name):
        return test.value == "True"
    if isinstance(test, cst.Integer):
        return test.value not in ("0",)
    return False


def is_irrefutable(pattern: cst.MatchPattern) -> bool:
    return isinstance(pattern, cst.MatchAs) and pattern.pattern is None


def _pattern_names(pattern: cst.CSTNode) -> list[str]:
    names: list[str] = []
    stack = [pattern]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.MatchAs) and node.name is not None:
            names.append(node.name.value)
        if isinstance(node, cst.MatchStar) and node.name is not None:
            names.append(node.name.value)
        stack.extend(node.children)
    return names
