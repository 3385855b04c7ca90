"""Statements: blocks, assignments, branches, loops, ``try``, ``with``, ``match``, imports
and definitions.

Branches fork the state and join it; loops iterate to a fixpoint; paths that end in
``return``/``raise``/``break``/``continue``, or a call of a function that always raises, stop
(dead code after them is not analysed). ``match`` lives in :mod:`.patterns`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import takewhile

import libcst as cst

from dispatch_lint.analyzer.bounds import MAX_LOOP_ROUNDS, MAX_UNROLLED_LOOPS
from dispatch_lint.analyzer.dataflow.conditions import CAPTURE_TEST
from dispatch_lint.analyzer.dataflow.runtime import NONE
from dispatch_lint.analyzer.dataflow.state import State, join_states
from dispatch_lint.analyzer.dataflow.syntax import (
    dotted_name,
    is_constant_false,
    is_constant_true,
    operator_symbol,
    statements_of,
    string_key,
)
from dispatch_lint.analyzer.facts import FuncInfo
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
    carried_by,
    join_all,
    narrow_capture,
    narrow_not_capture,
)

#: How many statements after a capture test its two branches run apart (see run_block):
#: a choice made by the test (a format, a device) is used right after it
_SPLIT_WINDOW = 3
#: At most this many tuples an unpacking's alternatives go on apart for (see partitioned_tuples)
_MAX_SPLIT = 4
#: The expressions that may iterate over local names' items (see note_item_alias).
_ITEM_EXPRESSIONS = frozenset({cst.Call, cst.BinaryOperation, cst.Tuple, cst.List, cst.Set})

#: The augmented assignments that change a container in place, by the container's kind:
#: the method they are (`xs += ys` is `xs.extend(ys)`).
_IN_PLACE = {"+=": (("list", "extend"),), "|=": (("dict", "update"), ("set", "update"))}


def _rebinds(method: FuncInfo) -> bool:
    """Whether a context manager's ``__enter__`` or ``__exit__`` works on its own state: it
    assigns a field of its own or a global (``self.output = None``, ``DEFAULT = saved``),
    or calls something on or with a field of its own (``self.loss.backward()``). Only such
    a method changes or checks what the code around the ``with`` sees; running the others
    there (a handler that pushes itself on a global stack and pops it off) costs without
    telling anything."""
    declared = {name.name.value for node in _walk(method.node)
                if isinstance(node, (cst.Global, cst.Nonlocal)) for name in node.names}
    for node in _walk(method.node):
        if any(_rebound(target, declared) for target in _targets(node)):
            return True
        if isinstance(node, cst.Call) and (
                isinstance(node.func, cst.Attribute) and _of_self(node.func.value)
                or any(isinstance(arg.value, cst.Attribute) and _of_self(arg.value)
                       for arg in node.args)):
            return True
    return False


def _of_self(node: cst.BaseExpression) -> bool:
    """Whether ``node`` is ``self`` or a field of it (``self.loss``, ``self.state.out``)."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name) and node.value == "self"


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def _targets(node: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    if isinstance(node, cst.Assign):
        for target in node.targets:
            yield target.target
    elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
        yield node.target


def _rebound(target: cst.BaseExpression, declared: set[str]) -> bool:
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_rebound(e.value, declared) for e in target.elements)
    if isinstance(target, cst.Attribute):
        return _of_self(target.value)
    return isinstance(target, cst.Name) and target.value in declared


class LoopFrame:
    __slots__ = ("breaks", "continues")

    def __init__(self) -> None:
        self.breaks: list[State] = []
        self.continues: list[State] = []


class Statements:
    """The interpreter's statements."""

    def run_block(self, body: cst.BaseSuite | Sequence[cst.CSTNode], state: State | None,
                  line: bool = False) -> State | None:
        """Run the statements of ``body`` from ``state``; ``line``: the small statements of
        one line, whose capture test's split is the enclosing block's to go on with."""
        statements = statements_of(body)
        index = 0
        while index < len(statements):
            stmt = statements[index]
            index += 1
            if state is None:
                return None  # dead code: statements after return/raise/break/continue
            self.anchor = stmt
            self.path = state
            self.work += 1
            state = self.run_statement(stmt, state)
            if self.split_states is not None and not line:
                # a capture test's branches go on apart for the next few statements, up to
                # the next `if`: what they chose (`spec = ""` for a capture tensor) stays
                # with what they tested where it is used
                branches, self.split_states = self.split_states, None
                # (the next test splits the joined state anew; the pairs an unpacking kept
                # apart go on through it: `if is_capture(loss): continue` tests one of each)
                window = statements[index:index + _SPLIT_WINDOW]
                if not self.split_unpacked:
                    window = list(takewhile(lambda later: not isinstance(later, cst.If),
                                            window))
                self.split_unpacked = False
                if window and self.raised_at is not stmt and not self.diverged:
                    state = join_states([self.run_block(window, branch)
                                         for branch in branches])
                    index += len(window)
                    continue
            if self.raised_at is stmt:
                # a finding raises here on every path (a sink of this function's, or one
                # JAX raises at in a trace): what follows never runs, but the callers go
                # on as they will once the finding is fixed (their own findings after the
                # call still count)
                self.raised_at = None
                self.returned = True
                state = None
            if self.diverged:  # it called a function that always raises
                self.diverged = False
                return None
        return state

    def run_statement(self, stmt: cst.CSTNode, state: State) -> State | None:
        method = getattr(self, "stmt_" + type(stmt).__name__, None)
        if method is None:
            return state
        return method(stmt, state)

    def stmt_SimpleStatementLine(self, stmt: cst.SimpleStatementLine, state: State
                                 ) -> State | None:
        return self.run_block(stmt.body, state, line=True)

    def stmt_Expr(self, stmt: cst.Expr, state: State) -> State:
        self.eval(stmt.value, state)
        return state

    def stmt_Assign(self, stmt: cst.Assign, state: State) -> State:
        test = stmt.value.test if isinstance(stmt.value, cst.IfExp) else None
        if (test is not None and self.func is not None
                and self.is_partitioning_test(test, state)):
            # `kind = "export" if is_capture(x) else "train"`: as the `if` statement it
            # is, each branch assigns in the state its test narrowed, and the two go on
            # apart for a few statements (see run_block)
            branches = self.if_branches(stmt.value, state)  # type: ignore[arg-type]
            for branch_state, value in branches:
                for target in stmt.targets:
                    self.assign(target.target, value, branch_state, stmt.value)
            if len(branches) == 2:
                self.split_states = [branch_state for branch_state, _ in branches]
                self.split_unpacked = False
            return join_states([branch_state for branch_state, _ in branches]) or state
        value = self.eval(stmt.value, state)
        alternatives = self.partitioned_tuples(stmt, value)
        if alternatives is not None:
            # `loss, param = queue.pop(0)` of pairs some of which hold a capture tensor: each
            # pair's items go on together for a few statements (see run_block), so a sink
            # that raises for the capture pair's loss leaves the other pairs' params alone
            branches = []
            for atom, trace in alternatives.items():
                branch_state = state.copy()
                self.assign(stmt.targets[0].target, Value.of(atom, trace), branch_state,
                            stmt.value)
                branches.append(branch_state)
            self.split_states, self.split_unpacked = branches, True
            return join_states(branches) or state
        for target in stmt.targets:
            self.assign(target.target, value, state, stmt.value)
        return state

    def partitioned_tuples(self, stmt: cst.Assign, value: Value) -> Value | None:
        """``value`` when ``stmt`` unpacks it into names and it is a few tuples of that many
        items, some holding a capture tensor and some none: alternatives whose items belong
        together; else None."""
        if self.func is None or len(stmt.targets) != 1 or not 2 <= len(value) <= _MAX_SPLIT:
            return None
        target = stmt.targets[0].target
        if not isinstance(target, (cst.Tuple, cst.List)) or not all(
                isinstance(e, cst.Element) and isinstance(e.value, cst.Name)
                for e in target.elements):
            return None
        width = len(target.elements)
        if not all(isinstance(a, Tup) and len(a.items) == width for a in value):
            return None
        holds = [any(narrow_capture(item) for item in atom.items) for atom in value]
        return value if any(holds) and not all(holds) else None

    def stmt_AnnAssign(self, stmt: cst.AnnAssign, state: State) -> State:
        if stmt.value is not None:
            self.assign(stmt.target, self.eval(stmt.value, state), state, stmt.value)
        return state

    def stmt_AugAssign(self, stmt: cst.AugAssign, state: State) -> State:
        left = self.eval(stmt.target, state)
        right = self.eval(stmt.value, state)
        op = operator_symbol(stmt.operator)
        # a list's `+=` extends it in place, a dict's or set's `|=` updates it: every alias
        # of the container sees the items (Python's `__iadd__`, `__ior__`); the name keeps it
        result, rest = EMPTY, left
        for kind, method in _IN_PLACE.get(op, ()):
            mutated = left.filter(lambda a, kind=kind: isinstance(a, Box) and a.kind == kind)
            if mutated:
                self.call_attribute(mutated, method, (right,), {}, stmt)
                result = result.join(mutated)
                rest = rest.filter(lambda a, kind=kind: not (
                    isinstance(a, Box) and a.kind == kind))
        if op in _IN_PLACE and any(isinstance(a, (Box, Tup)) for a in right):
            # a parameter grown by a container is the caller's container: replayed at calls
            method = _IN_PLACE[op][0][1]
            for atom, trace in rest.items():
                if isinstance(atom, Sym):
                    self.box_method_on_param(atom, trace, method, (right,), {}, stmt)
        if rest or not result:
            result = result.join(self.binop(rest, right, stmt, op))
        self.assign(stmt.target, result, state, stmt)
        return state

    def stmt_Return(self, stmt: cst.Return, state: State) -> None:
        self.returned = True
        if stmt.value is not None:
            returned = self.step(stmt, "returned")
            if isinstance(stmt.value, cst.IfExp):
                parts = self.if_values(stmt.value, state)
            else:
                parts = [(state.assumed, self.eval(stmt.value, state))]
            for assumed, value in parts:
                value = value.map_traces(returned)
                self.returns = self.returns.join(value)
                self.return_parts.append((assumed, value))
        # the exit's view is the path's after the value: what a call in it writes (a global
        # it rebinds, a field of `self`) is seen by the caller after the call
        self.note_exit(state, stmt.value)

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
        parent = self.func.parent if self.func is not None else None
        for item in stmt.names:
            self.declared_nonlocal.add(item.name.value)
            if parent is not None:
                self.program.declare_cell(parent.key, item.name.value)
        return state

    def stmt_Del(self, stmt: cst.Del, state: State) -> State:
        targets = stmt.target.elements if isinstance(stmt.target, cst.Tuple) else None
        for target in [t.value for t in targets] if targets is not None else [stmt.target]:
            if isinstance(target, cst.Name):
                state.env.pop(target.value, None)
            elif isinstance(target, cst.Subscript):
                # `del xs[i]`, `del d[k]`: which keys it holds and its length are not known
                for atom in self.eval(target.value, state):
                    if isinstance(atom, Box):
                        self.program.forget_shape(atom)
                        self.forget_item_aliases(atom)
        return state

    def stmt_Import(self, stmt: cst.Import, state: State) -> State:
        for alias in stmt.names:
            full = dotted_name(alias.name) or ""
            self.program.note_imported(full)  # `import a.b` runs a and a.b, binds a
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
                self.program.note_imported(base)
                self.star_import(base, state)
            return state
        for alias in stmt.names:
            name = dotted_name(alias.name) or ""
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            qualname = f"{base}.{name}" if base else name
            self.program.note_imported(qualname)  # base runs, and the submodule if it is one
            self.bind_import(local, qualname, state, stmt)
        return state

    def bind_import(self, local: str, qualname: str, state: State, node: cst.CSTNode) -> None:
        value = self.program.resolve(qualname)
        if value is None:
            value = Value.of(Ref(qualname))
        self.set_name(local, value, state)

    def stmt_If(self, stmt: cst.If, state: State) -> State | None:
        true_state, false_state = self.condition(stmt.test, state)
        if self.diverged:
            return None
        if is_constant_false(stmt.test):
            true_state = None
        import_time = self.import_time
        if import_time and _is_main_guard(stmt.test):
            self.import_time = False  # not run on import: functions do not start from it
        try:
            after_true = self.run_block(stmt.body.body, true_state)
        finally:
            self.import_time = import_time
        if stmt.orelse is None:
            after_false = false_state
        elif isinstance(stmt.orelse, cst.If):
            self.path = false_state
            after_false = self.stmt_If(stmt.orelse, false_state) if false_state else None
            self.split_states = None  # an `elif`'s branches join into this one's
        else:
            after_false = self.run_block(stmt.orelse.body.body, false_state)
        if (after_true is not None and after_false is not None and self.func is not None
                and self.is_partitioning_test(stmt.test, state)):
            self.split_states, self.split_unpacked = [after_true, after_false], False
        return join_states([after_true, after_false])

    def is_partitioning_test(self, test: cst.BaseExpression, state: State) -> bool:
        """Whether the branches of ``if test:`` go on apart (see run_block): a capture test
        of a value that may and may not be a capture tensor."""
        found = self.capture_test(test, state)
        if found is None or found[2] != CAPTURE_TEST:
            return False
        name = dotted_name(found[0])
        value = state.env.get(name) if name is not None else None
        return bool(value) and bool(narrow_capture(value)) and bool(narrow_not_capture(value))

    def stmt_While(self, stmt: cst.While, state: State) -> State | None:
        infinite = is_constant_true(stmt.test)
        return self.loop(stmt, state, None, stmt.test, infinite)

    def stmt_For(self, stmt: cst.For, state: State) -> State | None:
        iterable = self.eval(stmt.iter, state)
        elements = self.elements(iterable)
        if self.diverged:
            return None
        # a loop over a tuple or list of known, non-zero length runs its body at least once
        items = (self.iterated_items(iterable) or self.range_items(stmt.iter, state)
                 ) if stmt.asynchronous is None else None
        if items and self.unrolled_loops < MAX_UNROLLED_LOOPS:
            return self.unrolled_loop(stmt, state, items)
        return self.loop(stmt, state, (stmt.target, elements), None, False,
                         runs_once=bool(items))

    def unrolled_loop(self, stmt: cst.For, state: State, items: tuple[Value, ...]
                      ) -> State | None:
        """A loop over a few known items runs its body once per item, in order: the body
        sees each item alone (``for name in ("numpy", "capture"): table[name] = ...`` fills
        one slot per name), and what one iteration leaves the next starts from."""
        self.unrolled_loops += 1
        breaks: list[State] = []
        current: State | None = state
        try:
            for index, item in enumerate(items):
                if current is None:
                    break
                body_in = current.copy()
                self.assign(stmt.target, item, body_in, stmt.target)
                frame = LoopFrame()
                self.loops.append(frame)
                with self.in_item(index):
                    body_out = self.run_block(stmt.body.body, body_in)
                self.loops.pop()
                breaks.extend(frame.breaks)
                current = join_states([body_out, *frame.continues])
        finally:
            self.unrolled_loops -= 1
        if stmt.orelse is not None and current is not None:
            current = self.run_block(stmt.orelse.body.body, current)
        return join_states([current, *breaks])

    def loop(self, stmt: cst.For | cst.While, state: State,
             target: tuple[cst.BaseAssignTargetExpression, Value] | None,
             test: cst.BaseExpression | None, infinite: bool, runs_once: bool = False
             ) -> State | None:
        head = state
        exit_state: State | None = None
        frame = LoopFrame()
        after_body: State | None = None
        for _ in range(MAX_LOOP_ROUNDS):
            frame = LoopFrame()
            body_ins: list[State] = []
            if test is not None:
                self.path = head
                body_in, exit_state = self.condition(test, head)
                if infinite:
                    exit_state = None
                if body_in is not None:
                    body_ins.append(body_in)
            else:
                exit_state = head
                assert target is not None
                # tuples whose items go together (a shard's `(x, y)` on its own device): the
                # body runs for each, so an item's mismatch is not blamed on its partner's
                # (what the runtime raised on ends that item's path)
                for item in _loop_alternatives(target[0], target[1]) or [target[1]]:
                    body_in = head.copy()
                    self.assign(target[0], item, body_in, target[0])
                    body_ins.append(body_in)
            self.loops.append(frame)
            body_out = join_states([self.run_block(stmt.body.body, b) for b in body_ins])
            self.loops.pop()
            after_body = join_states([body_out, *frame.continues])
            new_head = join_states([head, after_body])
            assert new_head is not None
            if new_head == head:
                break
            head = new_head
        if runs_once:
            exit_state = after_body  # not the state before the first iteration
        if stmt.orelse is not None and exit_state is not None:
            exit_state = self.run_block(stmt.orelse.body.body,
                                        self.no_break_state(stmt, exit_state, after_body))
        return join_states([exit_state, *frame.breaks])

    def no_break_state(self, stmt: cst.For | cst.While, exit_state: State,
                       after_body: State | None) -> State:
        """Where a ``for ... else`` block starts: no iteration broke out, so when every
        iteration that went on had a loop variable known not to be capture (``if
        t.is_capture: break``), no item of the iterated name is capture either."""
        if not (isinstance(stmt, cst.For) and isinstance(stmt.target, cst.Name)
                and isinstance(stmt.iter, cst.Name)) or after_body is None:
            return exit_state
        went_on = after_body.env.get(stmt.target.value)
        iterated = exit_state.env.get(stmt.iter.value)
        if not went_on or not iterated or narrow_capture(went_on) or not narrow_capture(
                self.elements(iterated)):
            return exit_state
        state = exit_state.copy()
        state.env[stmt.iter.value] = self.real_items(iterated, stmt)
        return state

    def stmt_Try(self, stmt: cst.Try | cst.TryStar, state: State) -> State | None:
        before = state.copy()
        catches = any(_catches_guard_error(handler) for handler in stmt.handlers)
        # a guard raising into a handler that catches its error is the guard at work
        self.guards_caught += catches
        try:
            after_body = self.run_block(stmt.body.body, state)
        finally:
            self.guards_caught -= catches
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
        managers: list[tuple[Value, cst.BaseExpression]] = []
        for item in stmt.items:
            value = self.eval(item.item, state)
            managers.append((value, item.item))
            if isinstance(item.item, cst.Call) and self.is_runtime_call(item.item, "training",
                                                                         state):
                training = True
            if item.asname is not None:
                self.assign(item.asname.name, self.enter(value, item.item), state, item.item)
            else:  # `__enter__` runs also when the block names nothing (see _rebinds)
                self.enter(value, item.item, only_rebinding=True)
        if training:
            self.training_depth += 1
        before = state.copy()
        try:
            after = self.run_block(stmt.body.body, state)
        finally:
            if training:
                self.training_depth -= 1
        if after is None and any(self.suppresses(item.item, before) for item in stmt.items):
            return before  # `with suppress(...)`, `with pytest.raises(...)`: it goes on
        if after is not None:
            after = self.leave(managers, stmt, after, before)
        return after

    def leave(self, managers: Sequence[tuple[Value, cst.BaseExpression]], stmt: cst.With,
              state: State, entered: State) -> State | None:
        """The path after the block of ``stmt`` once its managers exited, the last entered
        first: what they write to globals and to their own fields (a default device
        restored, an output cleared) is what the code after the ``with`` sees. The block
        ended normally: ``__exit__`` gets ``(None, None, None)``; a generator-based manager
        (``@contextmanager``) runs on past its yield, when the block (from ``entered`` on)
        wrote what it reads or wrote."""
        name = "__aexit__" if stmt.asynchronous is not None else "__exit__"
        no_exception = (Value.of(NONE),) * 3
        for value, node in reversed(managers):
            for atom, trace in value.items():
                self.anchor, self.path = stmt, state
                method = self.program.find_method(atom.cls, name) if isinstance(
                    atom, Inst) else None
                if method is not None and self.rebinds(method):
                    self.call_method(atom, name, no_exception, {}, node,
                                     Value.of(atom, trace))
                elif isinstance(atom, Box) and atom in self.generator_calls:
                    call = self.generator_calls[atom]
                    changed = {slot for slot, held in state.view.items()
                               if entered.view.get(slot) != held}  # what the block wrote
                    if not call.resumes_otherwise(changed):
                        continue
                    self.program.apply(call.info, self, call.receiver, call.args,
                                       call.kwargs, node, call.closure, resume=call.view)
            if self.diverged:
                return None  # an `__exit__` that always raises (the caller's block ends too)
        return state

    def suppresses(self, manager: cst.BaseExpression, state: State) -> bool:
        """Whether the context manager ``manager`` swallows the exceptions of its block."""
        if not isinstance(manager, cst.Call):
            return False
        names = {a.qualname for a in self.eval_quiet(manager.func, state) if isinstance(a, Ref)}
        attribute = manager.func.attr.value if isinstance(manager.func, cst.Attribute) else ""
        return bool(names & _SUPPRESSING) or attribute in ("assertRaises", "assertRaisesRegex")

    def rebinds(self, method: FuncInfo) -> bool:
        known = self.program.rebinding.get(method.key)
        if known is None:
            known = self.program.rebinding[method.key] = _rebinds(method)
        return known

    def enter(self, value: Value, node: cst.CSTNode, only_rebinding: bool = False) -> Value:
        """The value ``with ... as name`` binds (``only_rebinding``: the block names
        nothing, so only an ``__enter__`` that rebinds a global or a field matters)."""
        out = EMPTY
        for atom, trace in value.items():
            if isinstance(atom, Inst):
                method = self.program.find_method(atom.cls, "__enter__")
                if only_rebinding and (method is None or not self.rebinds(method)):
                    continue
                out = out.join(self.call_method(atom, "__enter__", (), {}, node,
                                                Value.of(atom, trace)))
            elif isinstance(atom, Box) and atom.kind == "gen":
                # a generator-based context manager (@contextmanager): what it yields
                out = out.join(self.elements(Value.of(atom, trace)))
            elif isinstance(atom, (Ten, Dev, Sym, Tup, Box)):
                out = out.join(Value.of(atom, trace))
            else:
                out = out.join(Value.of(UNKNOWN))
        return out or Value.of(UNKNOWN)

    def set_through_setters(self, obj: Value, target: cst.Attribute, value: Value) -> Value:
        """``obj.name = value`` on instances whose class has a setter for ``name``: the
        setter runs (a guard in it may raise); the objects without one are left to store."""
        name = target.attr.value
        plain = EMPTY
        before, ends = self.take_end(), []
        for atom, trace in obj.items():
            setter = self.program.find_setter(atom.cls, name) if isinstance(atom, Inst) else None
            if setter is None:
                plain = plain.join(Value.of(atom, trace))
                ends.append((False, None))
                continue
            self.program.apply(setter, self, Value.of(atom, trace), (value,), {}, target)
            ends.append(self.take_end())
        # the path ends when every setter it may call always raises
        self.join_ends(before, ends)
        return plain

    def stmt_FunctionDef(self, stmt: cst.FunctionDef, state: State) -> State:
        info = self.program.define_function(stmt, self, state)
        if info.kind != "setter":  # a property's setter keeps the property under its name
            value = self.decorate(stmt, self.program.function_value(info), state)
            self.set_name(stmt.name.value, value, state)
        if info.transforms:
            # a decorated function is traced at its every call: check it as traced now
            value = self.fresh_closures(self.program.function_value(info), state)
            self.program.enter_traces(self, value, ())
        return state

    def stmt_ClassDef(self, stmt: cst.ClassDef, state: State) -> State:
        info = self.program.define_class(stmt, self, state)
        hook = self.program.find_method(info.key, "__init_subclass__", skip_self=True)
        if hook is not None:
            # a base's __init_subclass__ runs for the new class (a registry by subclassing)
            self.program.apply(hook, self, Value.of(Cls(info.key)), (), {}, stmt)
        self.set_name(stmt.name.value, self.decorate(stmt, Value.of(Cls(info.key)), state),
                      state)
        return state

    def note_item_alias(self, name: str, node: cst.CSTNode, state: State) -> None:
        """``name`` was just assigned ``node``: an expression iterating over other names'
        items (see :attr:`item_aliases`), or something else."""
        sources = self.item_sources(node, state) if type(node) in _ITEM_EXPRESSIONS else None
        if sources:
            held = {n: state.env[n] for n, _, _ in sources if n in state.env}
            if name not in state.env:
                self.item_aliases.pop(name, None)
                return
            held[name] = state.env[name]
            self.item_aliases[name] = (node, tuple(held.items()))  # type: ignore[assignment]
        else:
            self.item_aliases.pop(name, None)

    def assign(self, target: cst.BaseExpression, value: Value, state: State,
               node: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            self.bind(target.value, value, state, target)
            if isinstance(node, cst.Attribute) or string_key(node) is not None:
                self.field_aliases[target.value] = node
            else:
                self.field_aliases.pop(target.value, None)
            self.note_item_alias(target.value, node, state)
        elif isinstance(target, (cst.Tuple, cst.List)):
            self.unpack(target, value, state)
        elif isinstance(target, cst.Attribute):
            obj = self.eval(target.value, state)
            if self.program.traced:
                value = self.note_store(obj, value, target, "`{code}`", into="attribute")
            stored = value.map_traces(self.step(target, "stored in `{code}`"))
            obj = self.set_through_setters(obj, target, stored)
            self.store_attr(obj, target.attr.value, stored, state)
            if isinstance(target.value, cst.Name) and obj:
                # `self.x = v` then `self.x` in the same body: exactly v (a strong update).
                state.env[f"{target.value.value}.{target.attr.value}"] = stored
        elif isinstance(target, cst.Subscript):
            obj = self.eval(target.value, state)
            if self.program.traced:
                value = self.note_store(obj, value, target, "`{code}`")
            key, key_value = self.subscript_key_value(target, state)
            named = self.name_key(key_value) if key is None else None
            stored = value.map_traces(self.step(target, "stored in `{code}`"))
            if named is not None:
                self.store_named(obj, named, stored)
            else:
                self.store_item(obj, key, stored)
        elif isinstance(target, cst.StarredElement):
            self.assign(target.value, value, state, node)

    def unpack(self, target: cst.Tuple | cst.List, value: Value, state: State) -> None:
        """``a, *rest, b = value``: each target gets its item of a tuple of known shape (the
        starred one a list of the items between), else what iterating the value gives."""
        elements = target.elements
        count = len(elements)
        star = next((i for i, e in enumerate(elements) if isinstance(e, cst.StarredElement)),
                    None)
        # a list of known length unpacks item by item, as a tuple does
        shaped = {atom: self.known_items(Value.of(atom)) if isinstance(atom, Box) else (
            atom.items if isinstance(atom, Tup) else None) for atom in value}
        # a list whose last items are known (`[...] + [last]`): the targets after the
        # starred one get them, the starred one what is before them
        ends = {atom: self.ends_of(atom) for atom in value
                if star is not None and isinstance(atom, Box) and shaped[atom] is None}
        for index, element in enumerate(elements):
            part = EMPTY
            for atom, trace in value.items():
                items = shaped[atom]
                if items is not None and (len(items) == count if star is None
                                          else len(items) >= count - 1):
                    size = len(items)
                    if star is None or index < star:
                        item = items[index]
                    elif index == star:
                        item = join_all(items[star:size - (count - star - 1)])
                    else:
                        item = items[size - (count - index)]
                    # a tuple's items carry where the tuple went (a queue it was stored in)
                    part = part.join(carried_by(item, trace) if isinstance(atom, Tup) else item)
                elif isinstance(atom, Box) and (star is None or index < star):
                    part = part.join(self.box_content(atom, index))
                elif isinstance(atom, Sym) and (star is None or index < star):
                    # the caller's value, item by item (`for tag, act in stream` of pairs)
                    part = part.join(self.item_of(atom, trace, index, None))
                elif (known := ends.get(atom)) is not None and count - star - 1 <= len(
                        known[1]):
                    front, last = known
                    if index == star:
                        part = part.join(front.join(
                            join_all(last[:len(last) - (count - star - 1)])))
                    else:
                        part = part.join(last[len(last) - (count - index)])
                elif isinstance(atom, Box) and index == star == count - 1 and (
                        tail := self.tail_of(atom, star)) is not None:
                    part = part.join(tail)  # `head, *rest = [head] + rest`
                else:
                    part = part.join(self.elements(Value.of(atom, trace)))
            if isinstance(element, cst.StarredElement):
                box = self.new_box("list", element)
                self.program.write(("b", box.site), part)
                self.assign(element.value, Value.of(box), state, element)
            else:
                self.assign(element.value, part or Value.of(UNKNOWN), state, element)


def _loop_alternatives(target: cst.BaseAssignTargetExpression, elements: Value
                       ) -> list[Value] | None:
    """The few tuples a loop unpacking its items into names (``for step, (x, y) in ...``)
    may get, when they place their tensors differently (``(x, y)`` of one shard on
    Autodiff, of another on Numba): at most _MAX_SPLIT, else None (one joined run)."""
    if not isinstance(target, (cst.Tuple, cst.List)):
        return None
    options = _tuple_options(elements)
    if options is None or not 2 <= len(options) <= _MAX_SPLIT:
        return None
    placements = {frozenset(_devices_in(option)) for option in options}
    return options if len(placements) > 1 else None


def _tuple_options(value: Value, depth: int = 0) -> list[Value] | None:
    """``value``'s tuples, each alternative item of theirs that is itself a few tuples
    (``enumerate``'s pair around a generator's tuples) spelled out; None when an atom is not
    a tuple or there are more than _MAX_SPLIT."""
    if depth > 1 or not value or not all(isinstance(a, Tup) for a in value):
        return None
    out: list[Value] = []
    for atom, trace in value.items():
        choices: list[list[Value]] = [[]]
        for item in atom.items:  # type: ignore[attr-defined]
            inner = _tuple_options(item, depth + 1) if len(item) > 1 else None
            variants = inner if inner is not None else [item]
            choices = [chosen + [v] for chosen in choices for v in variants]
            if len(choices) > _MAX_SPLIT:
                return None
        out.extend(Value.of(Tup(tuple(chosen), atom.names), trace)  # type: ignore[attr-defined]
                   for chosen in choices)
        if len(out) > _MAX_SPLIT:
            return None
    return out


def _devices_in(value: Value) -> set[object]:
    """The devices of the tensors (and the devices) ``value`` holds, through tuples."""
    found: set[object] = set()
    for atom in value:
        if isinstance(atom, Ten):
            found.add(atom.dev)
        elif isinstance(atom, Dev):
            found.add(atom)
        elif isinstance(atom, Tup):
            for item in atom.items:
                found |= _devices_in(item)
    return found


def _is_main_guard(test: cst.BaseExpression) -> bool:
    """``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Equal)):
        return False
    sides = {dotted_name(test.left), dotted_name(test.comparisons[0].comparator)}
    strings = [n for n in (test.left, test.comparisons[0].comparator)
               if isinstance(n, cst.SimpleString)]
    return "__name__" in sides and any(s.value.strip("'\"") == "__main__" for s in strings)


#: Context managers that swallow the exceptions raised in their block.
_SUPPRESSING = frozenset({"contextlib.suppress", "pytest.raises", "pytest.warns"})


#: Exceptions a guard's CaptureGuardError is an instance of.
_GUARD_ERROR_BASES = frozenset({"CaptureGuardError", "DispatchError", "RuntimeError",
                                "Exception", "BaseException"})


def _catches_guard_error(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> bool:
    """Whether ``handler`` catches the CaptureGuardError a guard raises (a bare ``except:``,
    the error, a base class of it, or a tuple naming one)."""
    if handler.type is None:
        return True
    kinds = handler.type.elements if isinstance(handler.type, cst.Tuple) else ()
    names = [dotted_name(e.value) for e in kinds] if kinds else [dotted_name(handler.type)]
    return any(name is not None and name.rsplit(".", 1)[-1] in _GUARD_ERROR_BASES
               for name in names)
