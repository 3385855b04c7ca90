"""How calls work: from a call expression to the callee's summary and back.

The interpreter's side (:class:`Calls`) evaluates the arguments, finds what the callee may be
(a function or method of the checked tree, a closure, a class, an object with ``__call__``, a
runtime API, anything else) and dispatches. The program's side (:class:`CallModel`) binds the
arguments to the callee's parameters, chooses the summary's calling context, instantiates the
summary (:class:`~dispatch_lint.analyzer.summaries.Substitution`) at the call, judges the
callee's pending events there and replays its effects on the heap.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

import libcst as cst

from dispatch_lint.analyzer.bounds import MAX_CONTEXTS, MAX_UNIT_WORK
from dispatch_lint.analyzer.dataflow.conditions import is_something
from dispatch_lint.analyzer.dataflow.containers import (
    CONTAINER_MUTATORS,
    LIST_MOVERS,
    MAX_UNROLLED,
)
from dispatch_lint.analyzer.dataflow.state import Slot, State
from dispatch_lint.analyzer.dataflow.views import CONSTRUCTORS, ViewContext
from dispatch_lint.analyzer.events import Event
from dispatch_lint.analyzer.facts import FuncInfo
from dispatch_lint.analyzer.summaries import Substitution, Summary, project
from dispatch_lint.analyzer.values import (
    AMBIENT,
    EMPTY,
    UNKNOWN,
    Accessor,
    Box,
    Closure,
    Cls,
    Const,
    Dev,
    Inst,
    Partial,
    Place,
    ProgramAtom,
    Record,
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
    Unknown,
    Value,
    certainly_traced,
    enters_via,
    is_tensorish,
    join_all,
    replace_fields,
)
from dispatch_lint.frameworks import dispatch

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.analyzer.dataflow.run import FunctionRun


#: Events of the runtime's guards: each raises CaptureGuardError on a capture tensor.
GUARD_EVENTS = frozenset({"no_capture", "ensure_not_capture"})

#: times a call's view of the caller's path widens with the slots it revealed (a list
#: inside a dict inside a field: one more level each)
MAX_VIEW_ROUNDS = 3

#: what a note says when a run stopped following calls at MAX_UNIT_WORK
WORK_REDUCED = (f"more than {MAX_UNIT_WORK} steps of work in one analysis: the calls after "
                "them became unknown")


class Calls:
    """The interpreter's half: call expressions and what their callee may be."""

    def expr_Call(self, node: cst.Call, state: State) -> Value:
        self.called.pop(id(node), None)
        args: list[Value] = []
        kwargs: dict[str, Value] = {}
        star: list[Value] = []
        for arg in node.args:
            value = self.eval(arg.value, state)
            if arg.star == "*":
                items = _tuple_items(value)
                if items is not None and not star:
                    args.extend(items)  # `f(*pair)`, `fn(*args)` in a wrapper: in place
                else:
                    star.append(self.elements(value))
            elif arg.star == "**":
                kwargs.update(self.keyword_items(value))
                if not self.keys_known(value):
                    self.open_keywords.add(id(node))
            elif arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        if star:
            args.append(join_all(star) or Value.of(UNKNOWN))
        func = node.func
        if type(func) is cst.Attribute:
            receiver = self.eval(func.value, state)
            result = self.call_attribute(receiver, func.attr.value, tuple(args), kwargs, node)
            if node.args:
                self.narrow_after_call(node, state, receiver=receiver)
        else:
            callee = self.eval(func, state)
            result = self.call_value(callee, tuple(args), kwargs, node)
            if node.args:
                self.narrow_after_call(node, state, callee=callee)
        return result

    def call_attribute(self, receiver: Value, name: str, args: tuple[Value, ...],
                       kwargs: dict[str, Value], node: cst.Call) -> Value:
        if name == "__class__":  # `self.__class__(...)`: a new instance of the same class
            return self.call_value(self.class_of(receiver, node), args, kwargs, node)
        if name in _STRING_METHODS:
            known = self.string_method(receiver, name, args, kwargs, node)
            if known is not None:
                return known
        if name in _TABLE_VIEWS and not args and not kwargs and len(receiver) == 1 and (
                isinstance(atom := next(iter(receiver)), Sym)):
            table = self.constant_table_of(atom)
            if table is not None:  # the caller's table of settings: its items, one by one
                return self.box_method(table, name, args, kwargs, node)
        out = EMPTY
        tensors = receiver.filter(is_tensorish)
        # a parameter the caller passed only dicts for has a dict's methods only
        methods = tensors.filter(lambda a: not self.passed_only_dicts(a))
        if methods and self.program.traced:
            out = out.join(self.traced_method(methods, name, args, kwargs, node))
            methods = methods.filter(lambda a: not isinstance(a, Traced))
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
                    out = out.join(self.box_method_on_param(atom, trace, name, args, kwargs,
                                                            node))
        if name in LIST_MOVERS:
            # a caller's list whose items a callee removes or moves: replayed at each call
            for atom, trace in tensors.items():
                if isinstance(atom, Sym):
                    self.keep_effect(Value.of(atom, trace), "moved", EMPTY)
        if methods and name not in CONTAINER_MUTATORS:
            if name in dispatch.AUTODIFF_METHODS:
                # what may also be a value the analysis does not know is not certainly a
                # plain tensor (DL006): the unknown part goes with the event
                methods = methods.join(receiver.filter(lambda a: isinstance(a, Unknown)))
            out = out.join(self.tensor_method(methods, name, args, kwargs, node))
        before, ends = self.take_end(), []
        for atom, trace in receiver.items():
            out = out.join(self.method_call(atom, trace, name, args, kwargs, node))
            ends.append(self.take_end())
        # the path ends after the call when every method it may call always raises (a
        # tensor's method raises as its sink says)
        self.join_ends(before, [] if methods else ends)
        for atom, trace in receiver.items():
            if isinstance(atom, Sym) and name in ("items", "values", "get", "pop", "copy"):
                # a parameter may be a container: mappings' and lists' accessors
                elem = self.project_sym(atom, trace, "elem")
                if name == "items":
                    out = out.join(self.box_of("list", node, Value.of(Tup((Value.of(UNKNOWN),
                                                                           elem)))))
                elif name == "copy":
                    out = out.join(Value.of(atom, trace))
                elif name in ("get", "pop") and args:
                    # `options.get(name, default)`: the item, or the default it may give
                    key = self.constant_key(args[0])
                    # what this run (or a callee) stored under the key itself
                    stored = self.param_items.get((atom, key), EMPTY) \
                        if isinstance(key, str) else EMPTY
                    default = args[1] if len(args) > 1 else (
                        Value.of(Const(None)) if name == "get" else EMPTY)
                    if isinstance(key, str) and name == "get" and not any(
                            self.is_symbolic(a) for a in default):
                        # the default only where the caller's dict may lack the key
                        out = out.join(self.project_sym(atom, trace, ("getor", key, default)))
                        out = out.join(stored)
                        continue
                    if isinstance(key, str):
                        elem = self.project_sym(atom, trace, ("get", key)).join(stored)
                    out = out.join(elem).join(default)
                else:
                    out = out.join(elem)
        return out or Value.of(UNKNOWN)

    def string_method(self, receiver: Value, name: str, args: tuple[Value, ...],
                      kwargs: dict[str, Value], node: cst.Call) -> Value | None:
        """A test or change of known strings (``stage.startswith("export")``,
        ``name.lower()``, a parameter by the constant its caller gave): its result, so that
        a branch on it is decided; None when a string or an argument is not known."""
        texts = self.constants(receiver)
        if kwargs or not texts or not all(isinstance(a, Str) for a in texts):
            return None
        if name in _STRING_CHANGES:
            if args:
                return None
            return join_all(self.string_value(getattr(atom.text, name)(), node)
                            for atom in texts)
        if len(args) != 1:
            return None
        affixes: list[tuple[str, ...]] = []
        for atom in self.constants(args[0]):
            if isinstance(atom, Str):
                affixes.append((atom.text,))
            elif isinstance(atom, Tup) and all(
                    len(item) == 1 and isinstance(next(iter(item)), Str) for item in atom.items):
                affixes.append(tuple(next(iter(item)).text for item in atom.items))
            else:
                return None
        return join_all(Value.of(Const(getattr(atom.text, name)(affix)))
                        for atom in texts for affix in affixes)

    def method_call(self, atom: object, trace: Trace | None, name: str,
                    args: tuple[Value, ...], kwargs: dict[str, Value], node: cst.Call
                    ) -> Value:
        """``receiver.name(...)`` for one atom the receiver may be (tensors apart)."""
        if isinstance(atom, Sym) and name == "_replace" and not args and kwargs:
            # a named tuple the caller passed (`batch._replace(x=...)`, in a generator)
            return replace_fields(Value.of(atom, trace), tuple(kwargs), tuple(kwargs.values()))
        if isinstance(atom, Sym):
            # a parameter holding an object of the checked tree: call its method
            objects = self.objects_of(atom, node)
            return self.call_supplied(lambda: self.call_attribute(objects, name, args, kwargs,
                                                                  node)) if objects else EMPTY
        if isinstance(atom, Ten):
            return EMPTY
        if isinstance(atom, Traced):
            model = self.program.traced_models.get(atom.framework)
            if model is not None and name in model.same_kind_methods:
                return EMPTY  # an array method: a tracer, and only that (traced_method)
        if isinstance(atom, Ref):
            return self.call_value(self.attribute_of(atom, trace, name, node), args, kwargs,
                                   node)
        if isinstance(atom, Inst):
            return self.call_method(atom, name, args, kwargs, node, Value.of(atom, trace))
        if isinstance(atom, Cls):
            return self.call_value(self.program.class_attribute(atom, name, self), args,
                                   kwargs, node)
        if isinstance(atom, ProgramAtom) and name == "run":
            self.read_program_inputs(args[0] if args else kwargs.get("inputs"), node)
            return self.real_result(kwargs.get("device", args[1] if len(args) > 1 else None),
                                    node)
        if isinstance(atom, Dev) and name in ("wrap", "from_inner") and atom.is_autodiff:
            # a capture tensor lifts only onto Autodiff over its own capture device: onto any
            # other it is moved off its device (the runtime's CaptureTransferError, DL002)
            lifted = (args[0] if args else EMPTY).filter(
                lambda a: isinstance(a, Sym) or isinstance(a, Ten) and a.dev.is_capture)
            if lifted:
                self.emit("lift", (lifted, Value.of(atom, trace)), name, node,
                          "lifted by `{code}`")
            return Value.of(Ten(atom), trace)
        if isinstance(atom, Box) and atom.kind == "dispatch" and name == "register":
            return self.call_dispatcher(Box("registrar", atom.site), args, kwargs, node)
        if isinstance(atom, Box):
            return self.box_method(atom, name, args, kwargs, node)
        if isinstance(atom, Tup) and atom.names:
            return self.record_method(atom, trace, name, kwargs, node)
        if isinstance(atom, Str) and name == "format" and _FORMAT_SPEC.search(atom.text):
            self.read_arguments((*args, *kwargs.values()), node)
        return Value.of(UNKNOWN)

    def call_value(self, callee: Value, args: tuple[Value, ...], kwargs: dict[str, Value],
                   node: cst.Call) -> Value:
        results = []
        before, ends = self.take_end(), []
        for atom, trace in callee.items():
            result = self.call_atom(atom, trace, args, kwargs, node)
            picked = self.picked.get(atom) if self.picked else None
            results.append(result if picked is None else self.picked_by_caller(result, picked))
            ends.append(self.take_end())
        # the path ends after the call when every function it may call always raises
        self.join_ends(before, ends)
        out = join_all(results)
        return out or Value.of(UNKNOWN)

    def call_atom(self, atom: object, trace: Trace | None, args: tuple[Value, ...],
                  kwargs: dict[str, Value], node: cst.Call) -> Value:
        program = self.program
        if isinstance(atom, Ref) and isinstance(atom.key, tuple) and \
                atom.key[0] == "bound method" and isinstance(atom.bound, Value):
            if atom.key[1] == "__getitem__":  # `map(per_head.__getitem__, names)`
                return self.item(atom.bound, self.constant_key(args[0]) if len(args) == 1
                                 else None, node)
            return self.call_attribute(atom.bound, atom.key[1], args, kwargs, node)
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
                def call() -> Value:
                    return program.apply(info, self, None, args, kwargs, node, atom)
                # a closure read from the receiver's fields (a hook the caller registered):
                # what it does with its free names is the caller's doing, as a parameter's is
                return self.call_supplied(call) if enters_via(trace, self.owner) else call()
        if isinstance(atom, Record):
            return self.record_instance(atom, args, kwargs)
        if isinstance(atom, Accessor):
            return self.call_accessor(atom, args, node)
        if isinstance(atom, Box) and atom.kind in ("dispatch", "registrar"):
            return self.call_dispatcher(atom, args, kwargs, node)
        if isinstance(atom, Partial):
            return self.call_value(atom.func, (*atom.args, *args), {**dict(atom.kwargs), **kwargs},
                                   node)
        if isinstance(atom, Cls):
            return program.instantiate(atom, self, args, kwargs, node)
        if isinstance(atom, Inst):
            return self.call_method(atom, "__call__", args, kwargs, node, Value.of(atom, trace))
        if isinstance(atom, Sym):
            objects = self.objects_of(atom, node)
            if objects:
                made = self.call_supplied(lambda: self.call_value(objects, args, kwargs, node))
                if not all(_of_the_tree(a) for a in objects):
                    return made  # a runtime creator's partial makes its tensor here
                # what a function of the caller's makes and returns (a loader callback's
                # batch) came from the caller, as the function did (see Step.via)
                entered = Step(self.file, node, "returned from `{code}`", self.anchor,
                               via=self.owner)
                return Value({a: _entered_at(t, entered) if isinstance(a, (Ten, Dev)) else t
                              for a, t in made.items()})
        if isinstance(atom, TracedFunction):
            return program.call_traced_function(self, atom, args, kwargs, node)
        if isinstance(atom, TraceTransform):
            return self.apply_transform(atom, args, kwargs, node)
        return Value.of(UNKNOWN)

    def call_supplied(self, call: Callable[[], Value]) -> Value:
        """Make ``call`` of an object the caller passed (a parameter's object or closure):
        what it reads of the object came from the caller too (see ``Event.via``)."""
        previous, self.calling_supplied = self.calling_supplied, True
        try:
            return call()
        finally:
            self.calling_supplied = previous

    def constant_table_of(self, atom: Sym) -> Box | None:
        """The dict of settings (see CallModel._constant_table) the caller passed as the
        parameter ``atom`` is, in this calling context; else None."""
        if atom.owner != self.owner or atom.proj:
            return None
        passed = self.param_context.get(atom.param)
        if passed is None or len(passed) != 1:
            return None
        table = next(iter(passed))
        return table if isinstance(table, Box) and table.kind == "dict" else None

    def passed_only_dicts(self, atom: object) -> bool:
        """Whether the caller passed only dicts of settings or flags as the parameter
        ``atom`` is, in this calling context: its methods are a dict's, not a tensor's."""
        if not isinstance(atom, Sym) or atom.owner != self.owner or atom.proj:
            return False
        return ("dicts", atom.param) in self.param_context or \
            self.constant_table_of(atom) is not None

    def objects_of(self, atom: Sym, node: cst.CSTNode) -> Value:
        """The functions and objects of the checked tree a parameter holds in this calling
        context (they decide which methods its calls reach); EMPTY when unknown."""
        if atom.owner != self.owner or atom.param not in self.param_context:
            return EMPTY
        # The caller's own parameters in the context (a recursive call passes them on, also
        # inside containers) stand for nothing here: read as this run's, each would ask for
        # its objects again, without end (datasets' _align_features: "code nested too deeply
        # to analyse").
        if atom in self.objects_asked:
            return EMPTY
        if any(isinstance(p, tuple) and len(p) > 1 and isinstance(p[1], Place)
               for p in atom.proj):
            # made into a device or a tensor here: no function or object, and the conversion
            # belongs to the call's substitution (made here too, it would report again what
            # the conversion breaks: `device("autodiff:capture")`)
            return EMPTY
        passed = self.param_context[atom.param].filter(lambda a: not isinstance(a, Sym))
        self.objects_asked.add(atom)
        try:
            return self.program.project_all(self, passed, atom.proj, node
                                            ).filter(_decides_calls)
        finally:
            self.objects_asked.discard(atom)


class CallModel:
    """The program's half: binding arguments and applying a callee's summary."""

    def apply(self, info: FuncInfo, run: FunctionRun, receiver: Value | None,
              args: tuple[Value, ...], kwargs: dict[str, Value], node: cst.CSTNode,
              closure: Closure | None = None, chain: tuple[object, ...] = (),
              offset: int = 0, fixed_names: frozenset[str] = frozenset(),
              sent: Value | None = None, resume: ViewContext | None = None) -> Value:
        """The value of calling ``info`` at ``node`` of ``run``: the summary instantiated
        with the arguments; its pending events are judged here, its effects replayed.
        ``chain``: transforms around the function (``jax.jit(f)``), whose options count
        parameters from ``offset`` (see :mod:`.traces`). ``resume``: a generator resumed
        past its yield (a ``@contextmanager`` at the end of its ``with`` block), called
        again as it was with the view its call had (see Program.summary).
        Past MAX_UNIT_WORK in one run, a call is unknown (and said to be)."""
        if run.work > MAX_UNIT_WORK:
            run.reduced(WORK_REDUCED)
            return Value.of(UNKNOWN)
        self_cls: Inst | Cls | None = None
        if info.cls is not None and receiver is None and args and info.kind in _BOUND_KINDS:
            receiver, args = args[0], args[1:]  # `Class.method(obj, ...)`, `fn(self, ...)`
        # the receiver's fields (a closure's free names) came from this run's caller too:
        # findings about them go further out; a closure this run made and calls reports in
        # its own frame
        passed_on = run.calling_supplied or (receiver is not None and run.passed_on(receiver))
        in_closure = closure is not None and not passed_on
        if receiver is not None and any(isinstance(a, Sym) for a in receiver):
            # a parameter holding the receiver: the objects the caller passed decide
            receiver = receiver.join(join_all(run.objects_of(a, node) for a in receiver
                                              if isinstance(a, Sym)))
        if info.cls is not None and receiver is not None:
            # one summary per receiver: its class decides overrides, its site its fields
            receivers = [a for a in receiver if isinstance(a, (Inst, Cls))]
            if len(receivers) > 1:
                return join_all(
                    self.apply(info, run, Value.of(r), args, kwargs, node, closure, chain,
                               offset, fixed_names, sent, resume)
                    for r in receivers
                )
            if receivers and receivers[0] not in (Inst(info.cls.key), Cls(info.cls.key)):
                self_cls = receivers[0]
        bound, defaulted = self._bind(info, run, node, receiver, args, kwargs)
        if sent is not None:
            # `gen.send(v)`: the generator's body again, with only what its yields give
            # known (its other findings were reported where it was made)
            bound, defaulted = {len(info.params): sent}, set()
        if self.traced:
            if info.transforms or chain:
                given = self.passed_parameters(info, receiver, args, kwargs)
                return self.apply_traced(info, run, bound, node, closure, self_cls,
                                         info.transforms + chain,  # type: ignore[arg-type]
                                         offset if chain else 0, given, fixed_names)
            ambient = run.ambient()
            if ambient:
                bound[AMBIENT] = ambient
        if closure is not None and run.param_context and run.owner in closure.parameters_of:
            closure = _with_supplied_objects(run, closure, node)
        recursive = self.analysing(info)
        if recursive:
            self.note_recursion(info)
        context = self._context(info, bound, defaulted, run) if not recursive else ()
        summary = self.summary(info, closure, self_cls, context, resume=resume)
        passed = tuple((("set", i), True) for i in sorted(summary.none_tests)
                       if i in bound and bound[i] and all(is_something(a) for a in bound[i]))
        if passed:
            # `if device is not None:` where the caller passes a device: decided
            context += passed
            summary = self.summary(info, closure, self_cls, context, resume=resume)
        # A recursive call reads the heap as its own callers left it: a view per level and
        # round of the recursion would not settle (the slots hold the callee's own values).
        view = run.view_for(summary.reads) if not recursive else frozenset()
        bounded: ViewContext = frozenset()
        for _ in range(MAX_VIEW_ROUNDS):
            if not view:
                break
            # what this path wrote to the slots the callee reads (see views.py)
            bounded = self.bounded_view(info, view)
            summary = self.summary(info, closure, self_cls, context, bounded, resume=resume)
            # a slot the view revealed (a list this path filled, held by a dict this path
            # wrote) is read only then: pass this path's view of it too
            wider = run.view_for(summary.reads)
            if wider <= view:
                break
            view = wider | view
        ret = self.instantiate_summary(info, run, summary, bound, node, closure,
                                       receiver=receiver, passed_on=passed_on,
                                       in_closure=in_closure)
        if resume is None:
            for atom in ret:
                if isinstance(atom, Box) and atom.kind == "gen":
                    # what resumes it past its yield (see Statements.leave)
                    run.generator_calls[atom] = GeneratorCall(info, closure, receiver, args,
                                                              kwargs, bounded, summary)
        return ret

    def instantiate_summary(self, info: FuncInfo, run: FunctionRun, summary: Summary,
                            bound: dict[int, Value], node: cst.CSTNode,
                            closure: Closure | None = None, traced: bool = False,
                            receiver: Value | None = None, passed_on: bool = False,
                            in_closure: bool = False) -> Value:
        """``summary`` of ``info`` instantiated at ``node`` of ``run`` with ``bound``
        (``traced``: a traced analysis, which judged its own stores; ``passed_on``: the
        receiver or closure came from ``run``'s caller, see :meth:`apply`)."""
        run.slot_reads |= summary.reads
        run.called.setdefault(id(node), []).append((info, summary))
        if self.unit_stack:
            self.unit_stack[-1].calls.add(summary.key)  # see Program.findings
        run.work += 1 + len(summary.events) + len(summary.effects)
        if info.no_capture or (closure is not None and closure.no_capture):
            flat = [run.contents(v).join(v) for v in bound.values() if v]
            if flat:
                run.emit("no_capture", tuple(flat), info.name, node,
                         f"passed to `@guards.no_capture` function `{info.name}()`")
        subst = Substitution(self, run, info, summary, bound, node)
        # this run's receiver passed as an argument (`cb.on_epoch_end(self)`): what the
        # callee does with its fields is the caller's too, as when this run reads them
        defer = passed_on or any(run.receives(a) for v in bound.values() for a in v)
        raised: set[int] = set()
        passed = run.path.passed if run.path is not None else frozenset()
        assumed = run.path.assumed if run.path is not None else frozenset()
        for event in summary.events:
            if run.guards_caught and event.kind in GUARD_EVENTS:
                continue  # the callee's guard raises into a handler of this run's
            if event.after & raised:
                continue  # a sink before it on every path raises in this call
            assumes = assumed
            if event.assumes:
                if any(subst.refutes(v) for v in event.assumes):
                    continue  # a test on its path lets nothing the caller passes through
                given = [subst.value(v) for v in event.assumes]
                if any(certainly_traced(v) for v in given):
                    continue  # its path found a tracer no tracer: not taken in this call
                assumes = assumes | {v for v in given if any(isinstance(a, Sym) for a in v)}
            values = tuple(subst.value(v) for v in event.values)
            if closure is not None and passed_on and event.via == info.key:
                # a closure the caller supplied (a hook it registered): the call that runs
                # it is a step of the finding's path, where its free names come in
                runs = Step(run.file, node, f"`{{code}}` runs `{info.name}()`", run.anchor)
                values = tuple(Value({a: _through_call(t, info.key, runs)
                                      for a, t in v.items()}) for v in values)
            if event.kind == "escape_into":
                # a traced function storing into a static argument: found where it stores,
                # once the call says what the argument is
                self.judge(Event(event.kind, values, event.detail, event.file, event.node,
                                 event.sink, event.rule, event.anchor), fresh=None)
                continue
            # a callee's event about this run's own values: what of them entered from this
            # run's caller (a device read from its receiver's fields) is that caller's
            via = event.via if event.via is not None or not run.supplied_by_caller \
                else run.owner
            if via is not None and via != run.owner and run.supplied_by_caller and not any(
                    enters_via(t, via) for v in values for _, t in v.items()):
                # not the callee's receiver's values but this run's (its receiver passed
                # as an argument: `cb.on_epoch_end(self)` reads `trainer.state`)
                via = run.owner
            moved = Event(event.kind, values, event.detail, run.file, node, event.sink,
                          event.rule, run.anchor, via=via,
                          frames=(*event.frames, (run.owner, run.file, node, run.anchor)),
                          after=event.after | passed, assumes=assumes)
            # what the callee's event held as it is (its own tensors and devices) it judged
            # itself: a parameter that turns into the same atom here finds nothing new (a
            # summary kept pending over `lr` reports `w`'s move again at every caller)
            known = {a for v in event.values for a in v if isinstance(a, (Ten, Dev))}
            found, deferred = self.judge(moved, fresh=subst.fresh - known if known else subst.fresh,
                                         defer=defer and not run.at_large,
                                         born=subst.born_in(event.values),
                                         at_via=info.key if in_closure else None)
            if found and run.trace is not None:
                run.note_raised(moved)
            if found and run.always_raises(moved):
                raised.add(id(event.sink.node))
            if deferred or any(run.is_symbolic(a) for v in values for a in v):
                run.keep_pending(moved)
                if id(event.sink.node) in summary.passes:
                    run.note_passed(moved)  # on every way through the callee
        # what the callee's view hands back read the caller's fields as they were when the
        # call began (`previous = state.device` restored in a `finally`): instantiated before
        # its effects are replayed
        view_values = [subst.value(value) for _, value, _ in summary.view_out]
        for target, proj, value in summary.effects:
            new_target = subst.value(target)
            new_value = subst.value(value)
            if traced:
                new_value = self.after_trace(summary, new_value)
            elif self.traced:
                # a store into an object the callee made in this call stays in the trace
                outlived = subst.value(target.filter(lambda a: a not in summary.fresh)) \
                    if summary.fresh else new_target
                new_value = run.note_store(outlived, new_value, node, "`{code}`",
                                           into="attribute" if isinstance(proj, str)
                                           and proj.startswith("attr:") else "container")
            made = [a for a in target if isinstance(a, Box) and a in subst.per_call_boxes]
            if isinstance(proj, tuple):  # ("item", key): under a constant key
                key = subst.key(proj[1])
                if isinstance(key, Sym):
                    run.store_named(new_target, (key,), new_value)
                else:
                    key = None if key is UNKNOWN else key
                    run.store_item(new_target, key, new_value)
                    if key is not None:
                        self._fill_made(run, subst, made, ("bk", key), new_value)
            elif proj == "moved":
                run.items_moved_by_callee(new_target)
            elif proj.startswith("attr:"):
                run.store_attr(new_target, proj[5:], new_value,
                               initial=True if info.name in CONSTRUCTORS else None)
            else:
                # a container made anew at this call holds the keys the callee's holds: its
                # joined content grows it only if the callee's grew (`head, *rest = pair()`)
                grows = len(made) != len(target) or any(
                    self.read(("grown", a.site)) for a in made)
                run.store_item(new_target, None, new_value, grows=grows)
                self._fill_made(run, subst, made, ("b",), new_value, keyed=not grows)
            subst.heap_changed()
        constructor = info.name in CONSTRUCTORS
        literals = _integer_arguments(info, node) if any(
            slot[0] == "len" for slot, _, _ in summary.view_out) else {}
        for (slot, value, must), new_value in zip(summary.view_out, view_values):
            if slot[0] == "len" and len(value) == 1:
                # a list of as many items as a parameter says: the caller's literal
                sym = next(iter(value))
                if isinstance(sym, Sym) and sym.owner == info.key and sym.param in literals:
                    new_value = Value.of(Const(literals[sym.param]))
            if traced:
                new_value = self.after_trace(summary, new_value)
            run.replay_view(subst.slot(slot), new_value, must, constructor)
        if summary.view_out:
            subst.heap_changed()
        _forget_fields_written(run, summary)
        if summary.made_capture:
            made_here = summary.made_capture.map_traces(
                Step(run.file, node, "made by `{code}`", run.anchor))
            run.made_capture = run.made_capture.join(made_here)
            if run.training_depth:
                run.emit("training", (made_here,), "create", node,
                         "created inside `guards.training()` by `{code}`")
        if not summary.returns_normally:
            run.diverged = True
        if raised & summary.passes and run.trace is None:
            # every way through the callee that returns passes a sink that raises in this
            # call (a finding): the caller goes on as it will once the finding is fixed,
            # with what the call then returns unknown, not the value that broke the sink
            # carried on (`w = model.w.require_grad()` returned and used again)
            ret = Value.of(UNKNOWN)
        else:
            ret = subst.returned(summary)
        for atom in ret:
            if isinstance(atom, Box) and atom.kind == "gen":
                run.generators[atom] = (info, closure)  # what `send` runs again
        returned = Step(run.file, node, "returned from `{code}`", run.anchor)
        if not (passed_on and receiver is not None):
            return ret.map_traces(returned)
        # what the callee made of its receiver's fields came from this run's caller, who
        # passed the receiver (an element of this receiver's container field, say)
        entered = Step(run.file, node, "returned from `{code}`", run.anchor, via=run.owner)
        return _entered_from(run, info.key, ret, entered, returned)

    def _fill_made(self, run: FunctionRun, subst: Substitution, made: list[Box],
                   slot: tuple[object, ...], value: Value, keyed: bool = False) -> None:
        """This call's own copies of containers the callee made hold ``value`` (in ``slot``:
        ("b",) or ("bk", key)) from where the program starts, as the callee's did: a run that
        does not start from this path (a method a trace or a callback runs) sees them
        (``keyed``: what the callee's held under its constant keys, joined)."""
        for box in made:
            for copy in subst.atom(box, None):
                if isinstance(copy, Box) and keyed and slot == ("b",):
                    self.write(("b", copy.site), run.concrete_part(value), keyed=True)
                elif isinstance(copy, Box):
                    run.write_initial((slot[0], copy, *slot[1:]), value)

    def _context(self, info: FuncInfo, bound: dict[int, Value],
                 defaulted: set[int] | frozenset[int] = frozenset(),
                 run: FunctionRun | None = None) -> tuple[object, ...]:
        """The objects of the checked tree passed to ``info``, per parameter: the summary
        is made for them so that calls through parameters resolve (bounded per function).
        ``*args`` and ``**kwargs`` are made for the shape of what they pack (how many
        positions, which names), so that a wrapper forwarding them keeps each in place;
        parameters that take their default get it in the summary itself."""
        context: tuple[object, ...] = tuple((("default", i), True) for i in sorted(defaulted))
        for index, value in sorted(bound.items()):
            objects = _objects_within(value, lambda box: self.box_item(box, None))
            if objects:
                context += ((index, objects),)
            elif value and all(_is_constant(a) for a in (
                    run.constants(value) if run is not None else value)):
                # flags and names decide branches (also those this run's caller gave)
                context += ((index, run.constants(value) if run is not None else value),)
            elif (names := self._constant_list(value)) is not None:
                # a list of names decides a loop over it (`for name in candidates:`)
                context += ((index, Value.of(Tup(names))),)
            elif any(self._holds_flags(a) for a in value):
                context += ((index, value.filter(self._holds_flags)),)  # `{"kind": "read"}`
                if all(isinstance(a, Box) and a.kind == "dict" for a in value):
                    # nothing else: the parameter is no tensor (`section.get("grad")`)
                    context += ((("dicts", index), True),)
            elif self._constant_table(value):
                # a table of settings (`{"features": (2, 3), "bias": (2, 1)}`): a loop over
                # its items in the callee goes item by item, as over the caller's own
                context += ((index, value),)
            kind = info.params[index].kind if index < len(info.params) else ""
            if kind == "star" and _tuple_items(value) is not None:
                context += ((("shape", index), len(_tuple_items(value) or ())),)
            elif kind == "kwstar":
                names = tuple(sorted(k for a in value if isinstance(a, Box) and a.kind == "dict"
                                     for k in self.box_keys(a) if isinstance(k, str)))
                # no names too: the function gets a dict of its own (what setdefault adds)
                context += ((("shape", index), names),)
        if not context:
            return ()
        seen = self.contexts.setdefault(info.key, set())
        if context not in seen and len(seen) >= MAX_CONTEXTS:
            return ()
        seen.add(context)
        return context

    def _constant_list(self, value: Value) -> tuple[Value, ...] | None:
        """The items of ``value`` when it is one list of known length whose items are each
        one constant (or a tuple of constants and devices), else None."""
        atom = next(iter(value)) if len(value) == 1 else None
        length = self.known_length(atom) if isinstance(atom, Box) and atom.kind == "list" \
            else None
        if length is None or not 0 < length <= MAX_UNROLLED:
            return None
        items = tuple(self.box_item(atom, i) for i in range(length))
        if all(len(item) == 1 and _is_constant(next(iter(item)), devices=True)
               for item in items):
            return items
        return None

    def _constant_table(self, value: Value, depth: int = 0) -> bool:
        """Whether ``value`` is one dict of at most MAX_UNROLLED known string keys, in a
        known order, holding only settings: numbers, strings, flags, tuples and lists of
        them, and such dicts (two levels deep at most); no tensor, device or parameter."""
        if len(value) != 1 or depth > 1:
            return False
        box = next(iter(value))
        if not isinstance(box, Box) or box.kind != "dict":
            return False
        keys = self.key_order(box)
        if keys is None or len(keys) > MAX_UNROLLED:
            return False
        for key in keys:
            for held in self.box_item(box, key):
                if isinstance(held, Box) and held.kind == "dict":
                    if not self._constant_table(Value.of(held), depth + 1):
                        return False
                elif isinstance(held, Box) and held.kind == "list":
                    if not all(_is_setting(a) for a in self.box_item(held, None)):
                        return False
                elif not _is_setting(held):
                    return False
        return True

    def _holds_flags(self, atom: object) -> bool:
        """A dict with a constant under a constant key: such flags decide branches too."""
        if not (isinstance(atom, Box) and atom.kind in ("dict", "ns")):
            return False
        for key in self.box_keys(atom):
            held = self.box_item(atom, key)
            if held and all(isinstance(a, (Const, Str)) for a in held):
                return True
        return False

    def project_all(self, run: FunctionRun, value: Value, projections: tuple[object, ...],
                    node: cst.CSTNode) -> Value:
        for proj in projections:
            value = project(run, value, proj, node)
        return value

    def _bind(self, info: FuncInfo, run: FunctionRun, node: cst.CSTNode,
              receiver: Value | None, args: tuple[Value, ...],
              kwargs: dict[str, Value]) -> tuple[dict[int, Value], set[int]]:
        """The value each parameter gets, and those that take their default (a summary is
        made with the default itself: what is born of it is born in the callee)."""
        params = info.params
        bound: dict[int, Value] = {}
        defaulted: set[int] = set()
        start = 0
        if info.cls is not None and info.kind in ("method", "property", "setter", "classmethod"):
            start = 1  # the receiver (see apply)
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
            bound[kwstar[0]] = run.dict_of(node, extra)
        for index in range(start, len(params)):
            if index not in bound:
                default = info.defaults.get(index)
                bound[index] = default if default is not None else Value.of(UNKNOWN)
                if default is not None and any(not isinstance(a, Unknown) for a in default):
                    defaulted.add(index)  # the callee's own default: born there
        return bound, defaulted


class GeneratorCall(NamedTuple):
    """A call that made a generator, as made: to resume the generator past its yield."""

    info: FuncInfo
    closure: Closure | None
    receiver: Value | None
    args: tuple[Value, ...]
    kwargs: dict[str, Value]
    view: ViewContext
    summary: Summary

    def resumes_otherwise(self, changed: set[Slot]) -> bool:
        """Whether the generator, resumed after a block that changed the ``changed`` slots,
        may go otherwise than when the call ran it through: it reads or wrote one of them
        (else what the call replayed of it stands)."""
        if not changed:
            return False
        summary = self.summary
        if changed & summary.reads or any(slot in changed for slot, _, _ in summary.view_out):
            return True
        fields = {slot[2] for slot in changed if slot[0] == "attr"}
        held = any(slot[0] != "attr" for slot in changed)
        for target, proj, _ in summary.effects:
            if all(isinstance(a, Box) and a.kind == "gen" for a in target):
                continue  # what the generator yields
            field = isinstance(proj, str) and proj.startswith("attr:")
            if (proj[5:] in fields) if field else held:
                return True
        return False


#: Method kinds whose first parameter is the instance the method is called on.
_BOUND_KINDS = frozenset({"method", "property", "setter"})
#: What a loop takes of the table of settings a caller passed (see constant_table_of)
_TABLE_VIEWS = frozenset({"items", "values", "keys"})


def _entered_at(trace: Trace | None, entered: Step) -> Trace:
    """``trace`` then ``entered``, unless its newest step says it came back at that call
    already (a method's result says so itself): then ``entered`` stands in for that step."""
    if trace is None:
        return Trace(entered)
    last = trace.step  # None for a trace that ends in one spliced after it (Trace.extend)
    if last is not None and last.node is entered.node and last.template == entered.template:
        return trace if last.via == entered.via else Trace(entered, trace.parent, trace.length)
    return trace.then(entered)


def _of_the_tree(atom: object) -> bool:
    """A function or object of the checked tree (not a runtime API, nor a partial of one):
    what calling it makes, it makes in a frame of its own."""
    if isinstance(atom, Partial):
        return all(_of_the_tree(a) for a in atom.func)
    if isinstance(atom, Ref):
        return atom.key is not None and not isinstance(atom.key, tuple)
    return isinstance(atom, (Closure, Inst, Cls))


def _entered_from(run: FunctionRun, callee: object, value: Value, entered: Step,
                  returned: Step | None, depth: int = 0) -> Value:
    """``value``, returned by a method called on a receiver ``run``'s caller passed, with
    ``entered`` on what came of the receiver's fields (``returned`` on the rest; None: as it
    is): so are the items of a tuple and the contents of a container it returned
    (``return [self.w, self.b]``), as a field's container (see ``Containers.box_content``)."""
    out: dict[object, Trace | None] = {}
    for atom, trace in value.items():
        if isinstance(atom, Tup) and depth < 2:
            atom = Tup(tuple(_entered_from(run, callee, item, entered, None, depth + 1)
                             for item in atom.items))
        elif isinstance(atom, Box) and atom not in run.via_boxes and _came_via(
                run.box_content(atom, None), callee):
            run.via_boxes[atom] = entered
        step = entered if enters_via(trace, callee) else returned
        out[atom] = trace.then(step) if trace is not None and step is not None else trace
    return Value(out)


def _through_call(trace: Trace | None, callee: object, call: Step) -> Trace | None:
    """``trace`` with ``call`` just before the step where the value entered ``callee``'s
    frame (see :attr:`Step.via`); as it is when it did not."""
    if not enters_via(trace, callee):
        return trace
    out: Trace | None = None
    for step in trace.steps():  # type: ignore[union-attr]
        if step.via == callee and call is not None:
            out, call = (out.then(call) if out is not None else Trace(call)), None
        out = out.then(step) if out is not None else Trace(step)
    return out


def _came_via(value: Value, callee: object, depth: int = 0) -> bool:
    """Whether some of ``value`` (a tuple's items too) came of ``callee``'s receiver."""
    return any(enters_via(trace, callee) or (
        isinstance(atom, Tup) and depth < 2
        and any(_came_via(item, callee, depth + 1) for item in atom.items))
        for atom, trace in value.items())


def _is_constant(atom: object, devices: bool = False) -> bool:
    """A flag, a name, or a tuple of them (``names=("shape", "mean")``); with ``devices``,
    tuples may pair them with devices too (``[("train", Autodiff(...)), ("export", cap)]``,
    whose loop in the callee then keeps each name with its device)."""
    if isinstance(atom, (Const, Str)):
        return True
    if not isinstance(atom, Tup):
        return False
    parts = [a for v in atom.items for a in v]
    if devices:
        # a number beside the device (`(2, AD)`: how many batches, on which device) is not
        # known (integers are not tracked), but the device it goes with is
        known = [a for a in parts if not isinstance(a, Unknown)]
        return bool(known) and all(_is_constant(a, devices) or isinstance(a, Dev)
                                   for a in known)
    return all(_is_constant(a, devices) for a in parts)


def _objects_within(value: Value, content: Callable[[Box], Value]) -> Value:
    """The objects of the checked tree ``value`` holds, also inside tuples of known shape
    (``*args`` forwarding a receiver), and the lists and dicts that hold some (``content``
    gives what a container holds; hooks or a dispatch table passed to a helper): what calls
    through a parameter resolve to."""
    out = {}
    for atom, trace in value.items():
        if _decides_calls(atom):
            out[atom] = trace
        elif isinstance(atom, Tup) and any(_objects_within(v, content) for v in atom.items):
            out[Tup(tuple(_objects_within(v, content) or Value.of(UNKNOWN)
                          for v in atom.items))] = trace
        elif isinstance(atom, Box) and atom.kind in ("list", "dict") and any(
                _decides_calls(a) for a in content(atom)):
            out[atom] = trace
    return Value(out)


def _is_setting(atom: object) -> bool:
    """A number, string or flag, or a tuple of them (a shape)."""
    if isinstance(atom, Tup):
        return all(_is_setting(a) for item in atom.items for a in item)
    return isinstance(atom, (Const, Str, Unknown))


def _tuple_items(value: Value) -> tuple[Value, ...] | None:
    """The items of ``value`` when it is one tuple of known shape."""
    if len(value) == 1:
        atom = next(iter(value))
        if isinstance(atom, Tup):
            return atom.items
    return None


def is_callable_object(atom: object) -> bool:
    """Atoms whose calls the analysis can follow: instances, classes, functions, closures."""
    return isinstance(atom, (Inst, Cls, Closure, Partial, Accessor)) or (
        isinstance(atom, Box) and atom.kind in ("dispatch", "registrar")) or (
        isinstance(atom, Ref) and atom.key is not None and not isinstance(atom.key, tuple)
    )


def _decides_calls(atom: object) -> bool:
    """Atoms a parameter may hold whose methods the analysis knows: the callable objects of
    the tree and exported programs (``program.run(...)`` through a helper's parameter)."""
    return is_callable_object(atom) or isinstance(atom, ProgramAtom)


#: ``str.format`` fields with a format spec (``{:.3f}``, ``{0:>8}``)
_FORMAT_SPEC = re.compile(r"\{[^{}:]*:[^{}]+\}")


def _integer_arguments(info: FuncInfo, node: cst.CSTNode) -> dict[int, int]:
    """The parameters a call passes an integer literal (``build(2, dev)``), by index: the
    analysis keeps no integers, but a list's length may come from one."""
    if not isinstance(node, cst.Call):
        return {}
    params = info.params
    start = 1 if info.cls is not None and info.kind in (
        "method", "property", "setter", "classmethod") else 0
    positional = [i for i in range(start, len(params)) if params[i].kind == "pos"]
    by_name = {p.name: i for i, p in enumerate(params) if p.kind in ("pos", "kwonly")}
    out: dict[int, int] = {}
    for k, arg in enumerate(node.args):
        if arg.star:
            break
        index = by_name.get(arg.keyword.value) if arg.keyword is not None else (
            positional[k] if k < len(positional) else None)
        value = arg.value
        if index is not None and isinstance(value, cst.Integer):
            out[index] = int(value.value, 0)
    return out


#: String methods whose result the analysis computes for known strings: tests (a branch on
#: them is decided) and changes (a device name may come out of them).
_STRING_TESTS = frozenset({"startswith", "endswith"})
_STRING_CHANGES = frozenset({"lower", "upper", "strip", "lstrip", "rstrip", "casefold"})
_STRING_METHODS = _STRING_TESTS | _STRING_CHANGES


def _forget_fields_written(run: FunctionRun, summary: Summary) -> None:
    """What ``x.name = v`` left on the path as exactly ``v`` (see ``assign``) no longer holds
    once a call may have written fields of that name (``t.pending = traced`` then
    ``t.resolve()``): such reads go back to the field, as the call left it."""
    state = run.path
    if state is None or not any("." in key for key in state.env):
        return
    names = {slot[2] for slot, _, _ in summary.view_out if slot[0] == "attr"}
    names.update(proj[5:] for _, proj, _ in summary.effects
                 if isinstance(proj, str) and proj.startswith("attr:"))
    if names:
        for key in [k for k in state.env if "." in k and k.rsplit(".", 1)[1] in names]:
            del state.env[key]


def _with_supplied_objects(run: FunctionRun, closure: Closure, node: cst.CSTNode) -> Closure:
    """``closure``, made by ``run`` over its parameters, as ``run``'s calling context fills
    them: a free name holding a parameter also holds the functions and objects the caller
    passed for it, so that the closure's calls through it resolve as ``run``'s own do
    (``sorted(items, key=lambda c: float(score(c)))`` with ``score`` the caller's)."""
    captured = []
    changed = False
    for name, value in closure.captured:
        supplied = join_all(run.objects_of(a, node) for a in value
                            if isinstance(a, Sym) and a.owner == run.owner)
        if any(a not in value for a in supplied):
            value = value.join(supplied)
            changed = True
        captured.append((name, value))
    return replace(closure, captured=tuple(captured)) if changed else closure
