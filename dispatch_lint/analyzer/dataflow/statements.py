"""Statements: blocks, assignments, branches, loops, ``try``, ``with``, ``match``, imports
and definitions.

Branches fork the state and join it; loops iterate to a fixpoint; paths that end in
``return``/``raise``/``break``/``continue`` stop (dead code after them is not analysed).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from dispatch_lint.analyzer.bounds import MAX_LOOP_ROUNDS
from dispatch_lint.analyzer.dataflow.state import State, join_states
from dispatch_lint.analyzer.dataflow.syntax import (
    dotted_name,
    is_constant_false,
    is_constant_true,
    operator_symbol,
    statements_of,
)
from dispatch_lint.analyzer.values import (
    EMPTY,
    UNKNOWN,
    Box,
    Cls,
    Dev,
    Inst,
    Ref,
    Sym,
    Ten,
    Tup,
    Value,
)


class LoopFrame:
    __slots__ = ("breaks", "continues")

    def __init__(self) -> None:
        self.breaks: list[State] = []
        self.continues: list[State] = []


class Statements:
    """The interpreter's statements."""

    def run_block(self, body: cst.BaseSuite | Sequence[cst.CSTNode], state: State | None
                  ) -> State | None:
        for stmt in statements_of(body):
            if state is None:
                return None  # dead code: statements after return/raise/break/continue
            self.anchor = stmt
            self.work += 1
            state = self.run_statement(stmt, state)
            if self.raised_at is stmt:
                # JAX raises here on every path (a traced analysis found a sink it breaks)
                self.raised_at = None
                state = None
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

    def stmt_Nonlocal(self, stmt: cst.Nonlocal, state: State) -> State:
        for item in stmt.names:
            self.declared_nonlocal.add(item.name.value)
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
                self.set_names(self.program.star_names(base), state)
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
        if info.transforms:
            # a decorated function is traced at its every call: check it as traced now
            value = self.fresh_closures(self.program.function_value(info), state)
            self.program.enter_traces(self, value, ())
        return state

    def stmt_ClassDef(self, stmt: cst.ClassDef, state: State) -> State:
        info = self.program.define_class(stmt, self, state)
        self.set_name(stmt.name.value, Value.of(Cls(info.key)), state)
        return state

    def assign(self, target: cst.BaseExpression, value: Value, state: State,
               node: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            self.bind(target.value, value, state, target)
        elif isinstance(target, (cst.Tuple, cst.List)):
            self.unpack(target, value, state)
        elif isinstance(target, cst.Attribute):
            obj = self.eval(target.value, state)
            if self.program.traced:
                value = self.note_store(obj, value, target, "`{code}`", into="attribute")
            stored = value.map_traces(self.step(target, "stored in `{code}`"))
            self.store_attr(obj, target.attr.value, stored)
            if isinstance(target.value, cst.Name):
                # `self.x = v` then `self.x` in the same body: exactly v (a strong update).
                state.env[f"{target.value.value}.{target.attr.value}"] = stored
        elif isinstance(target, cst.Subscript):
            obj = self.eval(target.value, state)
            if self.program.traced:
                value = self.note_store(obj, value, target, "`{code}`")
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
