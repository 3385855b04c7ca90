"""How calls work: from a call expression to the callee's summary and back.

The interpreter's side (:class:`Calls`) evaluates the arguments, finds what the callee may be
(a function or method of the checked tree, a closure, a class, an object with ``__call__``, a
runtime API, anything else) and dispatches. The program's side (:class:`CallModel`) binds the
arguments to the callee's parameters, chooses the summary's calling context, instantiates the
summary (:class:`~dispatch_lint.analyzer.summaries.Substitution`) at the call, judges the
callee's pending events there and replays its effects on the heap.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

import libcst as cst

from dispatch_lint.analyzer.bounds import MAX_CONTEXTS, MAX_UNIT_WORK
from dispatch_lint.analyzer.dataflow.containers import CONTAINER_MUTATORS
from dispatch_lint.analyzer.dataflow.state import State
from dispatch_lint.analyzer.events import Event
from dispatch_lint.analyzer.facts import FuncInfo
from dispatch_lint.analyzer.summaries import Substitution, Summary, project
from dispatch_lint.analyzer.values import (
    AMBIENT,
    EMPTY,
    UNKNOWN,
    Box,
    Closure,
    Cls,
    Const,
    Dev,
    Inst,
    PartialCall,
    ProgramAtom,
    Ref,
    Step,
    Str,
    Sym,
    Ten,
    Trace,
    Traced,
    TracedFunction,
    TraceTransform,
    Tup,
    Value,
    is_tensorish,
    join_all,
)

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.analyzer.dataflow.run import FunctionRun


#: what a note says when a run stopped following calls at MAX_UNIT_WORK
WORK_REDUCED = (f"more than {MAX_UNIT_WORK} steps of work in one analysis: the calls after "
                "them became unknown")


class Calls:
    """The interpreter's half: call expressions and what their callee may be."""

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

    def call_attribute(self, receiver: Value, name: str, args: tuple[Value, ...],
                       kwargs: dict[str, Value], node: cst.Call) -> Value:
        out = EMPTY
        tensors = receiver.filter(is_tensorish)
        if tensors and self.program.traced:
            out = out.join(self.traced_method(tensors, name, args, kwargs, node))
            tensors = tensors.filter(lambda a: not isinstance(a, Traced))
        if name in CONTAINER_MUTATORS and self.program.traced and any(
                isinstance(a, Box) or isinstance(a, Sym) and self.trace is not None
                for a in receiver):
            added = self.added_by(name, args, node).join(join_all(kwargs.values()))
            # only a container stores what `.update(...)` is given: an object's own method of
            # that name (an optimizer's) is analysed as the call it is, below
            containers = receiver.filter(lambda a: isinstance(a, (Box, Sym)))
            kept = self.note_store(containers, added, node, "`{code}`", hashed=name == "add")
            if kept is not added and args and name not in ("extend", "update"):
                args = (*args[:-1], kept)
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
            if isinstance(atom, (Ten, Traced)):
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

    def call_value(self, callee: Value, args: tuple[Value, ...], kwargs: dict[str, Value],
                   node: cst.Call) -> Value:
        out = join_all(self.call_atom(atom, trace, args, kwargs, node)
                       for atom, trace in callee.items())
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
        if isinstance(atom, TracedFunction):
            return program.call_traced_function(self, atom, args, kwargs, node)
        if isinstance(atom, TraceTransform):
            return self.apply_transform(atom, args, kwargs, node)
        if isinstance(atom, PartialCall):
            fixed_kwargs = dict(atom.kwargs)
            fixed_kwargs.update(kwargs)
            return self.call_value(atom.func, (*atom.args, *args), fixed_kwargs, node)
        return Value.of(UNKNOWN)

    def objects_of(self, atom: Sym, node: cst.CSTNode) -> Value:
        """The functions and objects of the checked tree a parameter holds in this calling
        context (they decide which methods its calls reach); EMPTY when unknown."""
        if atom.owner != self.owner or atom.param not in self.param_context:
            return EMPTY
        return self.program.project_all(self, self.param_context[atom.param], atom.proj, node
                                        ).filter(is_callable_object)


class CallModel:
    """The program's half: binding arguments and applying a callee's summary."""

    def apply(self, info: FuncInfo, run: FunctionRun, receiver: Value | None,
              args: tuple[Value, ...], kwargs: dict[str, Value], node: cst.CSTNode,
              closure: Closure | None = None, chain: tuple[object, ...] = (),
              offset: int = 0, fixed_names: frozenset[str] = frozenset()) -> Value:
        """The value of calling ``info`` at ``node`` of ``run``: the summary instantiated
        with the arguments; its pending events are judged here, its effects replayed.
        ``chain``: transforms around the function (``jax.jit(f)``), whose options count
        parameters from ``offset`` (see :mod:`.traces`).
        Past MAX_UNIT_WORK in one run, a call is unknown (and said to be)."""
        if run.work > MAX_UNIT_WORK:
            run.reduced(WORK_REDUCED)
            return Value.of(UNKNOWN)
        self_cls: Inst | Cls | None = None
        if info.cls is not None and receiver is not None:
            # one summary per receiver: its class decides overrides, its site its fields
            receivers = [a for a in receiver if isinstance(a, (Inst, Cls))]
            if len(receivers) > 1:
                return join_all(
                    self.apply(info, run, Value.of(r), args, kwargs, node, closure, chain,
                               offset, fixed_names)
                    for r in receivers
                )
            if receivers and receivers[0] not in (Inst(info.cls.key), Cls(info.cls.key)):
                self_cls = receivers[0]
        bound = self._bind(info, run, node, receiver, args, kwargs)
        if self.traced:
            if info.transforms or chain:
                passed = self.passed_parameters(info, receiver, args, kwargs)
                return self.apply_traced(info, run, bound, node, closure, self_cls,
                                         info.transforms + chain,  # type: ignore[arg-type]
                                         offset if chain else 0, passed, fixed_names)
            ambient = run.ambient()
            if ambient:
                bound[AMBIENT] = ambient
        summary = self.summary(info, closure, self_cls, self._context(info, bound))
        return self.instantiate_summary(info, run, summary, bound, node, closure)

    def instantiate_summary(self, info: FuncInfo, run: FunctionRun, summary: Summary,
                            bound: dict[int, Value], node: cst.CSTNode,
                            closure: Closure | None = None, traced: bool = False) -> Value:
        """``summary`` of ``info`` instantiated at ``node`` of ``run`` with ``bound``
        (``traced``: a traced analysis, which judged its own stores)."""
        run.work += 1 + len(summary.events) + len(summary.effects)
        if info.no_capture or (closure is not None and closure.no_capture):
            flat = [run.elements(v).join(v) for v in bound.values() if v]
            if flat:
                run.emit("no_capture", tuple(flat), info.name, node,
                         f"passed to `@guards.no_capture` function `{info.name}()`")
        subst = Substitution(self, run, info, summary, bound, node)
        for event in summary.events:
            values = tuple(subst.value(v) for v in event.values)
            if event.kind == "escape_into":
                # a traced function storing into a static argument: found where it stores,
                # once the call says what the argument is
                self.judge(Event(event.kind, values, event.detail, event.file, event.node,
                                 event.sink, event.rule, event.anchor), fresh=None)
                continue
            moved = Event(event.kind, values, event.detail, run.file, node, event.sink,
                          event.rule, run.anchor)
            if self.judge(moved, fresh=subst.fresh) and run.trace is not None:
                run.note_raised(moved)
            if any(run.is_symbolic(a) for v in values for a in v):
                run.keep_pending(moved)
        for target, proj, value in summary.effects:
            new_target = subst.value(target)
            new_value = subst.value(value)
            if self.traced and not traced:
                new_value = run.note_store(new_target, new_value, node, "`{code}`",
                                           into="attribute" if proj.startswith("attr:")
                                           else "container")
            if proj.startswith("attr:"):
                run.store_attr(new_target, proj[5:], new_value)
            elif proj.startswith("item:"):
                key = ast.literal_eval(proj[5:])
                for atom in new_target:
                    if isinstance(atom, Box):
                        run.write_item(atom, key, new_value)
            else:
                run.store_item(new_target, None, new_value)
            subst.heap_changed()
        ret = subst.value(summary.ret)
        return ret.map_traces(Step(run.file, node, "returned from `{code}`", run.anchor))

    def _context(self, info: FuncInfo, bound: dict[int, Value]) -> tuple[object, ...]:
        """The objects of the checked tree passed to ``info``, per parameter: the summary
        is made for them so that calls through parameters resolve (bounded per function)."""
        context: tuple[object, ...] = ()
        for index, value in sorted(bound.items()):
            objects = value.filter(is_callable_object)
            if objects:
                context += ((index, objects),)
            elif value and all(isinstance(a, (Const, Str)) for a in value):
                context += ((index, value),)  # flags and names decide branches
        if not context:
            return ()
        seen = self.contexts.setdefault(info.key, set())
        if context not in seen and len(seen) >= MAX_CONTEXTS:
            return ()
        seen.add(context)
        return context

    def project_all(self, run: FunctionRun, value: Value, projections: tuple[object, ...],
                    node: cst.CSTNode) -> Value:
        for proj in projections:
            value = project(run, value, proj, node)
        return value

    def _bind(self, info: FuncInfo, run: FunctionRun, node: cst.CSTNode,
              receiver: Value | None, args: tuple[Value, ...],
              kwargs: dict[str, Value]) -> dict[int, Value]:
        params = info.params
        bound: dict[int, Value] = {}
        start = 0
        if info.cls is not None and info.kind in ("method", "property", "setter", "classmethod"):
            start = 1
            if receiver is None and args and info.kind != "classmethod":
                args = args[1:]  # Class.method(obj, ...)
        positional = [i for i in range(start, len(params)) if params[i].kind == "pos"]
        rest = list(args)
        for index in positional:
            if not rest:
                break
            bound[index] = rest.pop(0)
        star = [i for i, p in enumerate(params) if p.kind == "star"]
        if star and rest:
            bound[star[0]] = Value.of(Tup(tuple(rest)))
        by_name = {p.name: i for i, p in enumerate(params) if p.kind in ("pos", "kwonly")}
        extra: dict[str, Value] = {}
        for name, value in kwargs.items():
            if name in by_name:
                bound[by_name[name]] = value
            else:
                extra[name] = value
        kwstar = [i for i, p in enumerate(params) if p.kind == "kwstar"]
        if kwstar and extra:
            bound[kwstar[0]] = run.box_of("dict", node, join_all(extra.values()))
        for index in range(start, len(params)):
            if index not in bound:
                bound[index] = info.defaults.get(index, Value.of(UNKNOWN))
        return bound


def is_callable_object(atom: object) -> bool:
    """Atoms whose calls the analysis can follow: instances, classes, functions, closures."""
    return isinstance(atom, (Inst, Cls, Closure)) or (
        isinstance(atom, Ref) and atom.key is not None and not isinstance(atom.key, tuple)
    )


#: ``str.format`` fields with a format spec (``{:.3f}``, ``{0:>8}``)
_FORMAT_SPEC = re.compile(r"\{[^{}:]*:[^{}]+\}")
