"""Traced frameworks (JAX) as the interpreter sees them: traced functions, tracers, their sinks.

What each name does is data in the framework's model (:mod:`dispatch_lint.frameworks.jax`);
this module turns it into values and events, for any framework of that shape.

*Traced functions.* A transform given a function (``jax.jit(f)``, ``@jax.jit``,
``functools.partial(jax.jit, static_argnums=1)``) gives a
:class:`~dispatch_lint.analyzer.values.TracedFunction`. The function is analysed as traced
where the transform is applied (so that a decorated function is checked even if this code
never calls it) and again at each call whose context changes how it is traced (called inside
another trace, with tracers in its static arguments). A traced analysis is a summary like any
other (:meth:`Program.summary` with a :class:`TraceSpec`): its traced parameters are
:class:`~dispatch_lint.analyzer.values.Traced` atoms born at the parameter, so findings inside
it are reported where they are; its untraced (static) parameters stay symbolic and are judged
at each call with the caller's arguments. The bodies of ``jax.lax`` control flow are traced at
the call that is given them, every parameter a tracer.

*The trace a function runs in.* Inside a trace every result of the framework is a tracer, even
from constants (``jnp.zeros(3)`` under ``jit``). A summary does not know whether its caller is
traced, so it treats "the trace I run in" as one more parameter, :data:`AMBIENT`: a call
passes its own, which is a tracer inside a traced function, nothing at the module's top level.

*Escapes* (DL009): a tracer stored in a global or nonlocal name, or into an object or container
that existed before the trace began (module objects, the traced method's receiver, what a traced
closure captured, what was read from them), outlives its trace.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from dispatch_lint.analyzer.bounds import MAX_TUPLE_DEPTH
from dispatch_lint.analyzer.dataflow.syntax import dotted_name
from dispatch_lint.analyzer.facts import all_params
from dispatch_lint.analyzer.values import (
    AMBIENT,
    EMPTY,
    HOST_ARRAY,
    UNKNOWN,
    Box,
    Closure,
    Cls,
    Const,
    HostArray,
    Inst,
    PartialCall,
    Ref,
    Step,
    Str,
    Sym,
    Trace,
    Traced,
    TracedFunction,
    TraceTransform,
    Tup,
    Value,
    is_traced,
    join_all,
)
from dispatch_lint.frameworks.model import ABSTRACT, CONCRETE, Body, FrameworkModel, Shape

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.analyzer.events import Event
    from dispatch_lint.analyzer.dataflow.program import Program
    from dispatch_lint.analyzer.dataflow.run import FunctionRun
    from dispatch_lint.analyzer.dataflow.state import State
    from dispatch_lint.analyzer.facts import FuncInfo
    from dispatch_lint.analyzer.summaries import Summary

#: An option whose value is not a literal: which parameters it names is unknown.
UNPARSED = ("<unparsed>",)


@dataclass(frozen=True)
class TraceSpec:
    """How a function is traced: which parameters are tracers of which kind (the others are
    untraced, static), and the kind of what the framework makes inside (None: the values it
    makes from constants are concrete, as under ``grad`` alone). ``label`` names the trace in
    messages (``jax.jit``)."""

    framework: str
    label: str
    kinds: tuple[tuple[int, str], ...]
    ambient: str | None


class TraceState:
    """A traced analysis's own facts: its spec, the trace its tracers belong to, what the
    framework makes inside it."""

    __slots__ = ("ambient", "spec", "trace_id")

    def __init__(self, spec: TraceSpec, trace_id: object, ambient: Value) -> None:
        self.spec = spec
        self.trace_id = trace_id
        self.ambient = ambient


@dataclass(frozen=True)
class Callee:
    """A function of the checked tree as a transform sees it: with its closure, its bound
    receiver, the arguments fixed before it (``functools.partial``) and the transforms
    already around it."""

    info: FuncInfo
    closure: Closure | None = None
    receiver: Value | None = None
    fixed: tuple[Value, ...] = ()
    fixed_kwargs: tuple[tuple[str, Value], ...] = ()
    chain: tuple[TraceTransform, ...] = ()

    @property
    def passed_before(self) -> int:
        """How many leading positional parameters are filled before the call's arguments:
        the fixed ones and the bound receiver (a static method reached through an instance
        takes none)."""
        receives = self.receiver is not None and self.info.kind != "staticmethod"
        return len(self.fixed) + receives


def takes_positionally(callee: Callee, count: int) -> bool:
    """Whether ``callee`` can be called with ``count`` positional arguments after those it
    is given (its receiver, a partial's). When it cannot (more than its parameters and no
    ``*args``, or fewer than those without a default), the call raises TypeError before the
    function runs: ``lax.switch`` over a list holding a factory beside the branches it
    makes does not trace the factory with the operands."""
    info = callee.info
    params = all_params(info.node.params)
    fixed_names = {name for name, _ in callee.fixed_kwargs}
    positional = [i for i, p in enumerate(info.params) if p.kind == "pos"]
    given = callee.passed_before + count
    if given > len(positional) and not any(p.kind == "star" for p in info.params):
        return False
    return all(params[i].default is not None or info.params[i].name in fixed_names
               for i, p in enumerate(info.params)
               if p.kind == "kwonly" or p.kind == "pos" and i in positional[given:])


def _leafless(value: Value, depth: int = 0) -> bool:
    """Whether ``value`` is certainly a pytree without leaves (``None``, ``()``, tuples of
    them), which a transform passes on as it is: no tracer."""
    return bool(value) and depth < 4 and all(
        (isinstance(atom, Const) and atom.value is None)
        or (isinstance(atom, Tup) and all(_leafless(v, depth + 1) for v in atom.items))
        for atom in value
    )


def _tuple_width(value: Value) -> int | None:
    """The length of the tuples ``value`` certainly is, if they all have one."""
    widths = {len(atom.items) if isinstance(atom, Tup) else None for atom in value}
    return widths.pop() if len(widths) == 1 else None


def _compared_first(value: Value) -> Value:
    """What ordering ``value`` compares for sure: a tuple's first item (the later ones only
    break ties, and the pairs sorted are mostly a mapping's items, whose keys differ)."""
    if not any(isinstance(a, Tup) and a.items for a in value):
        return value
    return join_all(atom.items[0] if isinstance(atom, Tup) and atom.items else
                    Value.of(atom, trace) for atom, trace in value.items())


def _kind_max(a: str | None, b: str) -> str:
    return ABSTRACT if ABSTRACT in (a, b) else b


# ------------------------------------------------------------------------------ literals


def literal(node: cst.BaseExpression) -> object:
    """The Python value of a literal option (ints, strings, None, booleans and tuples or lists
    of them), else :data:`UNPARSED`."""
    if isinstance(node, cst.Integer):
        try:
            return int(node.evaluated_value)
        except ValueError:
            return UNPARSED
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = literal(node.expression)
        return -inner if isinstance(inner, int) and not isinstance(inner, bool) else UNPARSED
    if isinstance(node, cst.SimpleString):
        try:
            text = node.evaluated_value
        except Exception:  # noqa: BLE001 - odd literals are not options
            return UNPARSED
        return text if isinstance(text, str) else UNPARSED
    if isinstance(node, cst.Name) and node.value in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[node.value]
    if isinstance(node, (cst.Tuple, cst.List)):
        items = tuple(literal(e.value) for e in node.elements
                      if not isinstance(e, cst.StarredElement))
        if len(items) != len(node.elements) or UNPARSED in items:
            return UNPARSED
        return items
    return UNPARSED


def call_options(node: cst.Call, positional: tuple[str, ...], skip: int
                 ) -> tuple[tuple[str, object], ...]:
    """The literal options of a transform call: keywords, and the positional arguments after
    the first ``skip`` ones named by ``positional``."""
    options: list[tuple[str, object]] = []
    position = 0
    for arg in node.args:
        if arg.star:
            continue
        if arg.keyword is not None:
            options.append((arg.keyword.value, literal(arg.value)))
            continue
        if skip <= position < skip + len(positional):
            options.append((positional[position - skip], literal(arg.value)))
        position += 1
    return tuple(options)


def _positions(value: object) -> tuple[object, ...] | None:
    """An option naming parameters, as a tuple (None when not a literal)."""
    if value is UNPARSED:
        return None
    if isinstance(value, tuple):
        return value
    return (value,)


# --------------------------------------------------------------------------- the program


class TraceModel:
    """The program's half: traced analyses and calls of traced functions."""

    program: Program

    def init_traces(self, models: Iterable[FrameworkModel], sources: Iterable[bytes]) -> None:
        """Keep the traced frameworks (those with transforms or bodies) that some source
        mentions: the others cannot give a tracer, and the interpreter skips their hooks."""
        texts = list(sources)
        self.traced_models: dict[str, FrameworkModel] = {}
        for model in models:
            if not model.traces():
                continue
            if any(model.mentioned_in(text) for text in texts):
                self.traced_models[model.name] = model
        #: whether any traced framework is in play (every hook asks this first)
        self.traced = bool(self.traced_models)
        #: the unit ids of the traced analyses (their sites' owner): what they make lives in
        #: their trace
        self.traced_units: set[object] = set()
        self._owner_cache: dict[str, FrameworkModel | None] = {}

    def heap_value(self, key: tuple[object, ...], value: Value) -> Value:
        """What a heap slot keeps of ``value``: tracers only in the objects and containers a
        traced analysis made (they die with the trace). Anywhere else a tracer has escaped
        (reported where it is stored), or the slot is shared by objects made in many
        contexts (a summary's, or one past the bound on sites): kept there, it would reach
        code that runs outside any trace. In a slot that objects made anywhere share (past
        the bounds on sites) the same holds for the tracers in its tuples (the state tuple
        of an optimizer state made in a trace)."""
        if not any(isinstance(a, (Traced, Tup)) for a in value):
            return value
        site = key[2] if key[0] == "f" else key[1] if key[0] in ("b", "bk") else None
        owner = getattr(site, "owner", None)
        if owner is not None and owner in self.traced_units:
            return value
        if owner is None:
            return _dropped(value, lambda a: isinstance(a, Traced))
        return value.filter(lambda a: not isinstance(a, Traced))

    def after_trace(self, summary: Summary, value: Value) -> Value:
        """What a traced analysis's write to the heap leaves for the code that runs after its
        trace: its own tracers die with the trace, and so do the objects it made (which hold
        them). Where they outlive it, the analysis reported the escape (DL009) where they
        were stored; anywhere else the slot is one that objects made outside the trace share
        (an instance past the bound on sites), and kept there they would reach code that
        never runs in the trace."""
        key = summary.key
        if not (isinstance(key, tuple) and key and isinstance(key[-1], TraceSpec)):
            return value
        trace_id = (key[0], key[-1])
        owner = summary.owner
        left = _dropped(value, lambda a: isinstance(a, Traced) and a.trace == trace_id or (
            isinstance(a, (Box, Inst)) and a.site is not None and a.site.owner == owner))
        return left if left is value else left or Value.of(UNKNOWN)

    def traced_model_of(self, qualname: str) -> FrameworkModel | None:
        """The traced framework ``qualname`` belongs to, if any."""
        cache = self._owner_cache
        if qualname in cache:
            return cache[qualname]
        found = next((m for m in self.traced_models.values() if m.owns(qualname)), None)
        cache[qualname] = found
        return found

    def transform_model(self, chain: tuple[TraceTransform, ...]) -> FrameworkModel | None:
        return self.traced_models.get(chain[-1].framework) if chain else None

    # ------------------------------------------------------------------ callees

    def callees(self, run: FunctionRun, value: Value) -> list[Callee]:
        """The functions of the checked tree ``value`` may be, as a transform sees them."""
        out: list[Callee] = []
        for atom in value:
            out.extend(self._callees_of(run, atom, 0))
        return out

    def _callees_of(self, run: FunctionRun, atom: object, depth: int) -> list[Callee]:
        if depth > 4:
            return []
        if isinstance(atom, Ref) and atom.key is not None and not isinstance(atom.key, tuple):
            info = self.funcs.get(atom.key)
            if info is None:
                return []
            receiver = atom.bound if isinstance(atom.bound, Value) else None
            return [Callee(info, receiver=receiver)]
        if isinstance(atom, Closure):
            info = self.funcs.get(atom.key)
            return [Callee(info, closure=atom)] if info is not None else []
        if isinstance(atom, Inst):
            method = self.find_method(atom.cls, "__call__")
            return [Callee(method, receiver=Value.of(atom))] if method is not None else []
        if isinstance(atom, PartialCall):
            out = []
            for inner in atom.func:
                for callee in self._callees_of(run, inner, depth + 1):
                    out.append(Callee(callee.info, callee.closure, callee.receiver,
                                      callee.fixed + atom.args,
                                      callee.fixed_kwargs + atom.kwargs, callee.chain))
            return out
        if isinstance(atom, TracedFunction):
            out = []
            for inner in atom.func:
                for callee in self._callees_of(run, inner, depth + 1):
                    out.append(Callee(callee.info, callee.closure, callee.receiver,
                                      callee.fixed, callee.fixed_kwargs,
                                      callee.chain + atom.chain))
            return out
        return []

    def resolve_captures(self, run: FunctionRun, closure: Closure | None,
                         node: cst.CSTNode) -> Closure | None:
        """A closure traced from ``run`` (a ``lax`` body, a function jitted in a factory),
        its captured parameters of ``run`` joined with the functions and objects this
        calling context passes for them: calls through them inside the trace resolve."""
        if closure is None or not closure.captured or run.trace is not None and \
                not run.param_context:
            return closure
        changed = False
        captured = []
        for name, value in closure.captured:
            extra = EMPTY
            for atom in value:
                if isinstance(atom, Sym) and atom.owner == run.owner:
                    extra = extra.join(run.objects_of(atom, node))
            if extra:
                value = value.join(extra)
                changed = True
            captured.append((name, value))
        return Closure(closure.key, tuple(captured), closure.no_capture) if changed else closure

    def _receiver_class(self, callee: Callee) -> Inst | Cls | None:
        if callee.receiver is None or callee.info.cls is None:
            return None
        receivers = [a for a in callee.receiver if isinstance(a, (Inst, Cls))]
        if len(receivers) == 1 and receivers[0] not in (Inst(callee.info.cls.key),
                                                      Cls(callee.info.cls.key)):
            return receivers[0]
        return None

    # ------------------------------------------------------------------ specs

    def traced_kinds(self, model: FrameworkModel, chain: tuple[TraceTransform, ...],
                     callee: Callee, offset: int) -> dict[int, str]:
        """Which parameters of ``callee`` the transforms of ``chain`` trace, and how: the
        positions a transform's options name count from ``offset``."""
        info = callee.info
        params = info.params
        start = 1 if info.cls is not None and info.kind in ("method", "property",
                                                           "classmethod") else 0
        positional = [i for i, p in enumerate(params) if p.kind == "pos"][offset:]
        fixed_names = {name for name, _ in callee.fixed_kwargs}
        named = {p.name: i for i, p in enumerate(params) if p.kind in ("pos", "kwonly")}
        every = {i for i, p in enumerate(params)
                 if i >= start and (p.kind != "pos" or i in positional)
                 and p.name not in fixed_names}
        kinds: dict[int, str] = {}
        for transform in reaching(model, chain):
            spec = model.transforms.get(transform.qualname)
            if spec is None:
                continue
            options = dict(transform.options)
            traced = set(every)
            if spec.traced_only:
                chosen = _positions(options.get(spec.traced_only, spec.traced_default))
                traced = set() if chosen is None else {
                    positional[p] for p in chosen
                    if isinstance(p, int) and not isinstance(p, bool) and 0 <= p < len(positional)
                } & every
            for option in spec.static:
                if option not in options:
                    continue
                names = _positions(options[option])
                if names is None:
                    traced = set()
                    break
                for item in names:
                    if isinstance(item, bool):
                        continue
                    if isinstance(item, int) and -len(positional) <= item < len(positional):
                        traced.discard(positional[item])
                    elif isinstance(item, str) and item in named:
                        traced.discard(named[item])
            if spec.unmapped and spec.unmapped in options:
                axes = options[spec.unmapped]
                if axes is None or axes is UNPARSED:
                    traced = set()
                elif isinstance(axes, tuple):
                    for position, axis in enumerate(axes):
                        if axis is None and position < len(positional):
                            traced.discard(positional[position])
            for index in traced:
                kinds[index] = _kind_max(kinds.get(index), spec.kind)
        return kinds

    def trace_spec(self, model: FrameworkModel, chain: tuple[TraceTransform, ...],
                   kinds: dict[int, str], run: FunctionRun | None,
                   bound: dict[int, Value] | None) -> TraceSpec:
        """The spec of a trace by ``chain``, called from ``run`` with ``bound`` arguments
        (None: where the transform is applied, before any call): inside an abstract trace,
        or given abstract tracers, a parameter traced by a differentiation transform alone
        is abstract too."""
        plain = reaching(model, chain)
        ambient = ABSTRACT if any(model.transforms[t.qualname].kind == ABSTRACT
                                  and model.transforms[t.qualname].stages
                                  for t in plain) else None
        if run is not None and any(isinstance(a, Traced) and a.kind == ABSTRACT
                                   for a in run.ambient()):
            ambient = ABSTRACT
            kinds = dict.fromkeys(kinds, ABSTRACT)
        if bound is not None:
            for index in list(kinds):
                if any(isinstance(a, Traced) and a.kind == ABSTRACT
                       for a in bound.get(index, EMPTY)):
                    kinds[index] = ABSTRACT
        label = plain[-1].qualname if plain else chain[-1].qualname
        return TraceSpec(model.name, label, tuple(sorted(kinds.items())), ambient)

    # ------------------------------------------------------------------ entering traces

    def enter_traces(self, run: FunctionRun, value: Value, chain: tuple[TraceTransform, ...]
                     ) -> None:
        """Where transforms are applied to a function: analyse it as traced, so that what
        breaks in it is found even if the checked code never calls it."""
        for callee in self.callees(run, value):
            full = callee.info.transforms + callee.chain + chain
            model = self.transform_model(full)  # type: ignore[arg-type]
            if model is None:
                continue
            kinds = self.traced_kinds(model, full,  # type: ignore[arg-type]
                                      callee, callee.passed_before)
            # Before any call, a parameter with a default may well never be passed (and a
            # default is not traced): only those without one are surely tracers.
            defaults = callee.info.defaults
            kinds = {i: k for i, k in kinds.items() if i not in defaults
                     and callee.info.params[i].kind in ("pos", "kwonly")}
            spec = self.trace_spec(model, full, kinds, None, None)  # type: ignore[arg-type]
            if spec.kinds or spec.ambient:
                closure = self.resolve_captures(run, callee.closure, callee.info.node)
                # untraced parameters keep their defaults: flags decide branches
                context = self._context(callee.info, dict(defaults))
                self.summary(callee.info, closure, self._receiver_class(callee), context,
                             trace=spec)

    def call_traced_function(self, run: FunctionRun, atom: TracedFunction,
                             args: tuple[Value, ...], kwargs: dict[str, Value],
                             node: cst.Call) -> Value:
        """A call of ``jax.jit(f)`` and the like: ``f`` traced with these arguments."""
        model = self.transform_model(atom.chain)
        for callee in self.callees(run, Value.of(atom)):
            self.apply(callee.info, run, callee.receiver, (*callee.fixed, *args),
                       {**dict(callee.fixed_kwargs), **kwargs}, node, callee.closure,
                       chain=callee.chain,
                       offset=callee.passed_before,
                       fixed_names=frozenset(name for name, _ in callee.fixed_kwargs))
        if model is None or any(model.transforms[t.qualname].concrete_result
                                for t in atom.chain if t.qualname in model.transforms):
            return Value.of(UNKNOWN)
        return run.framework_result(model, args, kwargs)

    def passed_parameters(self, info: FuncInfo, receiver: Value | None,
                          args: tuple[Value, ...], kwargs: dict[str, Value]) -> set[int]:
        """The parameters a call passes (the others take their defaults, which a transform
        does not trace)."""
        params = info.params
        start = 1 if info.cls is not None and info.kind in ("method", "property", "setter",
                                                           "classmethod") else 0
        if receiver is None and start and info.kind != "classmethod":
            start = 0  # Class.method(obj, ...): the receiver is an argument
        positional = [i for i in range(start, len(params)) if params[i].kind == "pos"]
        passed = set(positional[:len(args)])
        if len(args) > len(positional):
            passed.update(i for i, p in enumerate(params) if p.kind == "star")
        by_name = {p.name: i for i, p in enumerate(params) if p.kind in ("pos", "kwonly")}
        for name in kwargs:
            if name in by_name:
                passed.add(by_name[name])
            else:
                passed.update(i for i, p in enumerate(params) if p.kind == "kwstar")
        return passed

    def apply_traced(self, info: FuncInfo, run: FunctionRun, bound: dict[int, Value],
                     node: cst.CSTNode, closure: Closure | None, self_cls: Inst | Cls | None,
                     chain: tuple[TraceTransform, ...], offset: int,
                     passed: set[int] | None = None,
                     fixed_names: frozenset[str] = frozenset()) -> Value:
        """A call of a function under ``chain``: its traced analysis for this call,
        instantiated here; it returns what the framework returns (concrete outside a
        trace, tracers of the caller's trace inside one). Only the ``passed`` parameters
        are traced, less those fixed by name before the transform (``fixed_names``)."""
        model = self.transform_model(chain)
        if model is None:
            return Value.of(UNKNOWN)
        ambient = run.ambient()
        plain = reaching(model, chain)
        if not plain:
            # custom_jvp / custom_vjp: a Python call, on concrete values unless the caller
            # traces abstractly
            for index, value in list(bound.items()):
                if any(isinstance(a, Traced) and a.kind == CONCRETE for a in value):
                    bound[index] = value.filter(
                        lambda a: not (isinstance(a, Traced) and a.kind == CONCRETE)
                    ) or Value.of(UNKNOWN)
            if ambient:
                bound[AMBIENT] = ambient
            summary = self.summary(info, closure, self_cls, self._context(info, bound))
            return self.instantiate_summary(info, run, summary, bound, node, closure)
        callee = Callee(info, closure, fixed_kwargs=tuple((n, EMPTY) for n in fixed_names))
        kinds = self.traced_kinds(model, plain, callee, offset)
        if passed is not None:
            kinds = {i: k for i, k in kinds.items() if i in passed}
        spec = self.trace_spec(model, plain, kinds, run, bound)
        closure = self.resolve_captures(run, closure, node)
        summary = self.summary(info, closure, self_cls, self._context(info, bound), trace=spec)
        self.instantiate_summary(info, run, summary, bound, node, closure, traced=True)
        if any(model.transforms[t.qualname].concrete_result for t in plain):
            return Value.of(UNKNOWN)
        values = [v for i, v in bound.items() if i != AMBIENT]
        return run.framework_result(model, tuple(values), {})

    def trace_bodies(self, run: FunctionRun, model: FrameworkModel, body: Body, label: str,
                     args: tuple[Value, ...], kwargs: dict[str, Value], node: cst.Call
                     ) -> None:
        """``jax.lax.scan(body, ...)`` and the like: each function given is traced at once,
        every parameter a tracer."""
        functions: list[Value] = []
        for where in body.functions:
            value = args[where] if isinstance(where, int) and where < len(args) else (
                kwargs.get(where) if isinstance(where, str) else None)
            if value is not None:
                functions.append(value)
        for where in body.sequences:
            value = args[where] if isinstance(where, int) and where < len(args) else (
                kwargs.get(where) if isinstance(where, str) else None)
            if value is not None:
                functions.append(run.elements(value))
        ambient = ABSTRACT if body.kind == ABSTRACT else None
        if any(isinstance(a, Traced) and a.kind == ABSTRACT for a in run.ambient()):
            ambient = ABSTRACT
        kind = ambient or body.kind
        count = body.passes
        if body.operands is not None and not any(a.star for a in node.args):
            count = max(len(args) - body.operands, 0)
        for value in functions:
            for callee in self.callees(run, value):
                if body.arguments is None and count is not None and not takes_positionally(
                        callee, count):
                    continue
                info = callee.info
                fixed_names = {name for name, _ in callee.fixed_kwargs}
                positional = [i for i, p in enumerate(info.params) if p.kind == "pos"]
                untraced = set(positional[:callee.passed_before])
                # the body is called positionally: a parameter it is not given keeps its
                # default, untraced (`def body(carry, x, init_mode=False)` under lax.scan)
                defaulted = frozenset() if body.arguments is not None else frozenset(
                    i for i, p in enumerate(info.params)
                    if i in info.defaults and p.name not in fixed_names and (
                        p.kind == "kwonly" or p.kind == "pos" and count is not None
                        and i in positional[callee.passed_before + count:]))
                kinds = {i: kind for i, p in enumerate(info.params)
                         if i not in untraced and p.name not in fixed_names
                         and i not in defaulted}
                given: tuple[Value, ...] = ()
                named: dict[str, Value] = {}
                if body.arguments is not None:
                    given = args[body.arguments:]
                    named = {k: v for k, v in kwargs.items() if k not in body.functions}
                bound, _ = self._bind(info, run, node, callee.receiver, (*callee.fixed, *given),
                                   {**dict(callee.fixed_kwargs), **named})
                if body.arguments is not None:
                    passed = self.passed_parameters(info, callee.receiver,
                                                    (*callee.fixed, *given), named)
                    kinds = {i: k for i, k in kinds.items()
                             if i in passed and not _leafless(bound.get(i, EMPTY))}
                spec = TraceSpec(model.name, label, tuple(sorted(kinds.items())), ambient)
                closure = self.resolve_captures(run, callee.closure, node)
                context = self._context(info, {}, defaulted) if defaulted else ()
                summary = self.summary(info, closure, self._receiver_class(callee), context,
                                       trace=spec)
                self.instantiate_summary(info, run, summary, bound, node, closure, traced=True)

    def bind_traced_parameter(self, info: FuncInfo, index: int, spec: TraceSpec,
                              trace_id: object) -> Value | None:
        """The value of parameter ``index`` in a traced analysis: a tracer born there, or
        None for an untraced one."""
        kind = dict(spec.kinds).get(index)
        if kind is None:
            return None
        param = info.params[index]
        step = Step(info.file, param.node,
                    f"parameter `{param.name}` of `{info.name}()`, traced by `{spec.label}`",
                    info.node if isinstance(info.node, cst.FunctionDef) else None)
        return Value.of(Traced(spec.framework, kind, trace_id), Trace(step))

    def trace_state(self, info: FuncInfo, spec: TraceSpec, trace_id: object) -> TraceState:
        ambient = EMPTY
        if spec.ambient is not None:
            where = info.node.name if isinstance(info.node, cst.FunctionDef) else info.node
            step = Step(info.file, where,
                        f"a JAX result inside `{info.name}()`, traced by `{spec.label}`",
                        info.node if isinstance(info.node, cst.FunctionDef) else None)
            ambient = Value.of(Traced(spec.framework, spec.ambient, trace_id, "op"),
                               Trace(step))
        return TraceState(spec, trace_id, ambient)


def reaching(model: FrameworkModel, chain: tuple[TraceTransform, ...]
             ) -> tuple[TraceTransform, ...]:
    """The transforms of ``chain`` (innermost first) that trace the function itself. One
    with concrete inputs (``custom_jvp``) is a plain call; under differentiation transforms
    alone it is called on concrete primals, so those outside it do not reach the function
    either (jax 0.10.2); an abstract one outside it (``jit``) does."""
    out: list[TraceTransform] = []
    for index, transform in enumerate(chain):
        spec = model.transforms.get(transform.qualname)
        if spec is not None and spec.concrete_inputs:
            if all((outer := model.transforms.get(t.qualname)) is not None
                   and outer.kind == CONCRETE for t in chain[index + 1:]):
                return tuple(out)
            continue
        out.append(transform)
    return tuple(out)


# ---------------------------------------------------------------------- the interpreter


class TraceCalls:
    """The interpreter's half: calls of a traced framework, tracers' methods, attributes and
    subscripts, and the stores that let a tracer escape."""

    program: Program
    trace: TraceState | None
    _ambient: Value | None
    outside: set[object]
    path: State | None
    entry_view: dict[tuple[object, ...], tuple[Value, bool]]

    def ambient(self) -> Value:
        """The trace this run runs in, as a value: a traced analysis's own; nothing at a
        module's top level; the :data:`AMBIENT` parameter in a summary."""
        if self.trace is not None:
            return self.trace.ambient
        if self.is_module or not self.program.traced:
            return EMPTY
        if self._ambient is None:
            func = self.func
            if func is None:
                self._ambient = EMPTY
            else:
                where = func.node.name if isinstance(func.node, cst.FunctionDef) else func.node
                step = Step(self.file, where, f"`{func.name}()` runs inside the trace",
                            func.node if isinstance(func.node, cst.FunctionDef) else None)
                self._ambient = Value.of(Sym(AMBIENT, (), False, self.owner), Trace(step))
        return self._ambient

    # ------------------------------------------------------------------ values

    def traced_part(self, value: Value, depth: int = 0, items: bool = True,
                    made: bool = False) -> Value:
        """The tracers ``value`` holds, itself or in its items (and the parameters that may be
        tracers, as such); without ``items`` only those it is itself (what an array method
        of it gives: a dict's ``.get`` is none). ``made``: for what the framework computes
        from it, beside the trace's own tracer (the ``made`` projection: inside a trace, an
        argument without tracers adds nothing to the result, which is that tracer)."""
        out = EMPTY
        proj = "array" if not items else "made" if made else "traced"
        for atom, trace in value.items():
            if isinstance(atom, Traced):
                out = out.join(Value.of(atom, trace))
            elif isinstance(atom, Sym):
                out = out.join(self.project_sym(atom, trace, proj))
            elif not items or depth >= 2:
                continue
            elif isinstance(atom, Tup):
                for item in atom.items:
                    out = out.join(self.traced_part(item, depth + 1, made=made))
            elif isinstance(atom, Box):
                out = out.join(self.traced_part(self.program.box_item(atom, None), depth + 1,
                                                made=made))
        return out

    def untraced(self, value: Value) -> Value:
        """``value`` where a test proved it is no tracer: its tracers dropped, its parameters
        projected so that a caller's tracer is dropped too (their items may still be ones)."""
        out = EMPTY
        for atom, trace in value.items():
            if isinstance(atom, Sym):
                out = out.join(self.project_sym(atom, trace, "untraced"))
            elif not isinstance(atom, Traced):
                out = out.join(Value.of(atom, trace))
        return out or Value.of(UNKNOWN)

    def framework_result(self, model: FrameworkModel | None, args: Iterable[Value],
                         kwargs: dict[str, Value]) -> Value:
        """What a call of the framework gives: inside a trace a tracer of that trace (from the
        arguments' tracers, else made there), outside one a concrete value."""
        out = EMPTY
        for value in (*args, *kwargs.values()):
            out = out.join(self.traced_part(value, made=True))
        if not any(isinstance(a, Traced) for a in out):
            out = out.join(self.ambient())
        return out or Value.of(UNKNOWN)

    def made_here(self, model: FrameworkModel, args: tuple[Value, ...],
                  kwargs: dict[str, Value], node: cst.CSTNode) -> Value:
        """A framework result: the arguments' tracers, or a tracer the trace makes here."""
        out = EMPTY
        for value in (*args, *kwargs.values()):
            out = out.join(self.traced_part(value, made=True))
        if not any(isinstance(a, Traced) for a in out):
            ambient = self.ambient()
            if ambient:
                out = out.join(ambient.map_traces(self.step(node, "a tracer made by `{code}`")))
        return out or Value.of(UNKNOWN)

    # ------------------------------------------------------------------ calls

    def traced_api(self, model: FrameworkModel, qualname: str, args: tuple[Value, ...],
                   kwargs: dict[str, Value], node: cst.Call) -> Value:
        """A call of ``qualname``, a name of the traced framework ``model``."""
        transform = model.transforms.get(qualname)
        if transform is not None:
            function = args[0] if args else kwargs.get("fun", kwargs.get("f"))
            options = call_options(node, transform.positional, 1 if args else 0)
            atom = TraceTransform(model.name, qualname, options)
            if function is None:
                return Value.of(atom)
            return self.transformed(function, (atom,), node)
        body = model.bodies.get(qualname)
        if body is not None:
            self.program.trace_bodies(self, model, body, qualname, args, kwargs, node)
            if qualname in model.concrete_functions:
                return Value.of(UNKNOWN)  # jax.eval_shape: shapes and dtypes
            rest = tuple(v for i, v in enumerate(args) if i not in body.functions
                         and i not in body.sequences)
            return self.framework_result(model, rest, {})
        through = model.calls_through.get(qualname)
        if through is not None:
            position, arguments = through
            if position < len(args):
                picked = tuple(args[i] for i in arguments if i < len(args)) if arguments \
                    is not None else tuple(v for i, v in enumerate(args) if i != position)
                width = _tuple_width(picked[0]) if qualname in model.same_structure and \
                    picked else None
                if width is not None and all(_tuple_width(v) == width for v in picked):
                    # a tuple of known length keeps its items apart: `a, b = jax.tree.map(f,
                    # (a, b))` maps each one (jax.tree.map(f, (1, t)) is (f(1), f(t)))
                    return Value.of(Tup(tuple(
                        self.mapped_leaves(args[position], tuple(
                            join_all(atom.items[i] for atom in value) for value in picked),
                            node)
                        for i in range(width))))
                return self.mapped_leaves(args[position], picked, node)
            return self.framework_result(model, args, kwargs)
        if qualname in model.callbacks:
            # the target runs later, outside the trace, on concrete values: nothing traced
            # flows into it; pure_callback's result is a tracer of the caller's trace
            if qualname in model.concrete_functions:
                return Value.of(UNKNOWN)
            return self.framework_result(model, (), {})
        if qualname in model.concrete_functions or any(
                qualname.startswith(prefix + ".") for prefix in model.internal_namespaces):
            return Value.of(UNKNOWN)
        if qualname in model.structural_functions or any(
                qualname.startswith(prefix + ".") for prefix in model.structural_namespaces):
            # pytree utilities move values around: their results are the arguments' tracers
            listed = model.leaf_lists.get(qualname)
            if listed is None:
                return join_all(self.traced_part(v) for v in args) or Value.of(UNKNOWN)
            # a list of the leaves: a Python list, holding the tracers
            paired, with_structure = listed
            leaves = (self.traced_part(args[0]) if args else EMPTY) or Value.of(UNKNOWN)
            if paired:
                leaves = Value.of(Tup((Value.of(UNKNOWN), leaves)))
            result = self.box_of("list", node, leaves)
            return Value.of(Tup((result, Value.of(UNKNOWN)))) if with_structure else result
        shape = model.shapes.get(qualname)
        if shape is not None:
            self.check_shape(model, shape, args, kwargs, node)
        sanitized = model.kind_sanitizers.get(qualname)
        if sanitized is not None and args:
            kept = tuple(v.filter(lambda a: not (isinstance(a, Traced) and a.kind == sanitized))
                         for v in args)
            return self.made_here(model, kept, {}, node)
        return self.made_here(model, args, kwargs, node)

    def mapped_leaves(self, function: Value, trees: tuple[Value, ...], node: cst.Call
                      ) -> Value:
        """What a pytree utility gives by calling ``function`` on the leaves of ``trees``:
        the tracers it returns, nothing more (jax.tree.map of ``x.shape[0]`` is ints)."""
        leaves = tuple(self.traced_part(v) or Value.of(UNKNOWN) for v in trees)
        result = self.call_value(function, leaves, {}, node)
        return self.traced_part(result) or Value.of(UNKNOWN)

    def transformed(self, function: Value, chain: tuple[TraceTransform, ...],
                    node: cst.CSTNode) -> Value:
        """``transform(function)``: a traced function, analysed as traced here."""
        self.program.enter_traces(self, function, chain)
        out = EMPTY
        for atom, trace in function.items():
            if isinstance(atom, TracedFunction):
                out = out.join(Value.of(TracedFunction(atom.func, atom.chain + chain), trace))
            else:
                out = out.join(Value.of(TracedFunction(Value.of(atom, trace), chain), trace))
        return out or Value.of(UNKNOWN)

    def apply_transform(self, transform: TraceTransform, args: tuple[Value, ...],
                        kwargs: dict[str, Value], node: cst.Call) -> Value:
        """Calling a transform value (``partial(jax.jit, static_argnums=1)(f)``)."""
        function = args[0] if args else kwargs.get("fun", kwargs.get("f"))
        if function is None:
            return Value.of(UNKNOWN)
        return self.transformed(function, (transform,), node)

    def partial_call(self, args: tuple[Value, ...], kwargs: dict[str, Value],
                     node: cst.Call) -> Value | None:
        """``functools.partial(f, ...)`` while a traced framework is in play: a transform with
        its options fixed, or a call with its first arguments fixed."""
        if not args:
            return None
        transforms = []
        for atom in args[0]:
            if isinstance(atom, Ref):
                model = self.program.traced_model_of(atom.qualname)
                if model is not None and atom.qualname in model.transforms:
                    spec = model.transforms[atom.qualname]
                    transforms.append(TraceTransform(
                        model.name, atom.qualname, call_options(node, spec.positional, 1)))
        if transforms:
            return join_all(Value.of(t) for t in transforms)
        return self.bound_partial(args, kwargs, node)

    def decorator_transforms(self, node: cst.FunctionDef, state: State
                             ) -> tuple[TraceTransform, ...]:
        """The transforms a function's decorators apply, innermost first."""
        chain: list[TraceTransform] = []
        for decorator in reversed(node.decorators):
            expr = decorator.decorator
            if isinstance(expr, cst.Call):
                callee = self.eval_quiet(expr.func, state)
                if not any(isinstance(a, Ref) and (
                        a.qualname == "functools.partial"
                        or self.program.traced_model_of(a.qualname) is not None)
                           for a in callee):
                    continue
                value = self.eval(expr, state)
            else:
                value = self.eval_quiet(expr, state)
            for atom in value:
                if isinstance(atom, TraceTransform):
                    chain.append(atom)
                    break
                if isinstance(atom, Ref):
                    model = self.program.traced_model_of(atom.qualname)
                    if model is not None and atom.qualname in model.transforms:
                        chain.append(TraceTransform(model.name, atom.qualname))
                        break
        return tuple(chain)

    def foreign_call(self, qualname: str, args: tuple[Value, ...], kwargs: dict[str, Value],
                     node: cst.Call) -> Value | None:
        """A call outside the traced frameworks that may be given tracers: NumPy, ``math``,
        ``operator.index``, builtins. None: nothing to say (the caller goes on as before)."""
        values = (*args, *kwargs.values())
        if not any(isinstance(a, (Traced, Sym, Tup, Box)) for v in values for a in v):
            return None
        if qualname.startswith("builtins."):
            return self.traced_builtin(qualname[len("builtins."):], args, kwargs, node)
        for model in self.program.traced_models.values():
            shape = model.shapes.get(qualname)
            if shape is not None:
                self.check_shape(model, shape, args, kwargs, node)
                rest = tuple(v for i, v in enumerate(args) if i not in shape.positions)
                self.check_conversion(model, qualname, rest, {
                    k: v for k, v in kwargs.items() if k not in shape.keywords}, node)
                return Value.of(UNKNOWN)
            for prefix, operation in model.function_sinks.items():
                if qualname == prefix or qualname.startswith(prefix + "."):
                    found = self.flat_traced(values)
                    if found:
                        self.emit("concretize", (found,), operation, node,
                                  "read as a concrete value by `{code}`")
                    return Value.of(UNKNOWN)
            result = self.check_conversion(model, qualname, args, kwargs, node)
            if result is not None:
                return result
        return None

    def host_result(self, qualname: str, result: Value) -> Value:
        """``result`` of ``qualname``, with a concrete array of another library when it is a
        function of one (``np.indices(shape)``) that gave no tracer."""
        if any(isinstance(a, Traced) for a in result):
            return result
        for model in self.program.traced_models.values():
            if qualname in model.foreign_concrete or qualname in model.foreign_passthrough:
                continue
            if any(qualname.startswith(prefix + ".") for prefix in model.foreign_conversions):
                return result.filter(lambda a: a is not UNKNOWN).join(Value.of(HOST_ARRAY))
        return result

    def check_conversion(self, model: FrameworkModel, qualname: str, args: tuple[Value, ...],
                         kwargs: dict[str, Value], node: cst.Call) -> Value | None:
        """A function of another array library given tracers."""
        operation = next((op for prefix, op in model.foreign_conversions.items()
                          if qualname.startswith(prefix + ".")), None)
        if operation is None:
            return None
        if qualname in model.foreign_concrete:
            return Value.of(UNKNOWN)
        if qualname in model.foreign_passthrough:
            # np.sum(t) is t.sum(): a tracer, no conversion
            return self.traced_part(args[0]) or Value.of(UNKNOWN) if args else None
        found = self.flat_traced((*args, *kwargs.values()))
        if found:
            self.emit("concretize", (found,), operation, node,
                      "converted to a NumPy array by `{code}`")
            return Value.of(UNKNOWN)
        return None

    def traced_builtin(self, name: str, args: tuple[Value, ...], kwargs: dict[str, Value],
                       node: cst.Call) -> Value | None:
        """Builtins that need a concrete value (``range(t)``, ``max(t, c)``) or that keep a
        tracer (``abs(t)``, ``round(t)``)."""
        for model in self.program.traced_models.values():
            operation = model.builtin_sinks.get(name)
            if operation is None or name in ("float", "complex", "int", "bool", "format"):
                continue  # those are read events of every framework (externals)
            if name in ("max", "min", "sorted"):
                items = args if len(args) > 1 else tuple(self.elements(a) for a in args)
                if "key" in kwargs:  # what the key gives is compared, not the items
                    items = tuple(self.call_value(kwargs["key"], (item,), {}, node)
                                  for item in items)
                found = self.flat_traced(tuple(_compared_first(v) for v in items))
                if found:
                    self.emit("concretize", (found,), operation, node, "compared by `{code}`")
                continue
            found = self.flat_traced(args)
            if found:
                self.emit("concretize", (found,), operation, node,
                          "used where Python needs an integer: `{code}`")
        if name in ("abs", "round", "pow", "divmod") and args:
            found = self.traced_part(args[0])
            if found:
                return found
        return None

    def flat_traced(self, values: Iterable[Value]) -> Value:
        """The tracers among ``values`` and their items, parameters included."""
        out = EMPTY
        for value in values:
            out = out.join(self.traced_part(value))
            for atom, trace in value.items():
                if isinstance(atom, Sym):
                    out = out.join(Value.of(atom, trace))
        return out

    def check_shape(self, model: FrameworkModel, shape: Shape, args: tuple[Value, ...],
                    kwargs: dict[str, Value], node: cst.CSTNode) -> None:
        """Arguments that must be concrete integers (a shape, a size)."""
        picked = [args[p] for p in shape.positions if p < len(args)]
        picked += [kwargs[k] for k in shape.keywords if k in kwargs]
        found = self.flat_traced(picked)
        if found:
            self.emit("concretize", (found,), shape.operation, node,
                      "used as a shape or size in `{code}`")

    # ------------------------------------------------------------------ tracers' operations

    def drop_kinds(self, value: Value, operation: str) -> Value:
        """``value`` less the tracers that a ``comparison`` or an integer ``cast`` makes
        concrete in their framework (JAX under ``grad`` alone)."""
        if not any(isinstance(a, Traced) for a in value):
            return value
        concrete = {
            name: model.kind_comparisons if operation == "comparison" else model.kind_casts
            for name, model in self.program.traced_models.items()}
        return value.filter(lambda a: not (isinstance(a, Traced) and a.kind
                                           == concrete.get(a.framework))) or Value.of(UNKNOWN)

    def integer_cast(self, name: str, args: tuple[Value, ...], kwargs: dict[str, Value]
                     ) -> bool:
        """``x.astype(jnp.int32)``: a cast to an integer or boolean dtype."""
        if name != "astype":
            return False
        dtype = args[0] if args else kwargs.get("dtype", EMPTY)
        return bool(dtype) and all(
            isinstance(a, Ref) and any(a.qualname in m.integer_dtypes
                                       for m in self.program.traced_models.values())
            or isinstance(a, Str) and a.text.lstrip("u").startswith(("int", "bool"))
            for a in dtype)

    def traced_method(self, receiver: Value, name: str, args: tuple[Value, ...],
                      kwargs: dict[str, Value], node: cst.Call) -> Value:
        """A method of a tracer (or of a parameter that may be one)."""
        traced = receiver.filter(is_traced)
        out = EMPTY
        array_method = False
        for model in self.program.traced_models.values():
            shape = model.method_shapes.get(name)
            if shape is not None:
                self.check_shape(model, shape, args, kwargs, node)
            operation = model.method_sinks.get(name)
            if operation is None and model.same_kind_methods and \
                    name not in model.same_kind_methods:
                continue  # not an array method: the value is something else (a pytree node)
            array_method = True
            if not traced:
                continue
            if operation is not None:
                self.emit("read", (traced,), operation, node, "read by `{code}`")
                out = out.join(Value.of(UNKNOWN))
                continue
            out = out.join(traced)
            for value in (*args, *kwargs.values()):
                out = out.join(value.filter(is_traced))
        if out and self.integer_cast(name, args, kwargs):
            out = self.drop_kinds(out, "cast")
        if array_method:
            # a parameter that may be a tracer gives one; a pytree node's `_asdict()` does not,
            # nor a dict's `.get(...)` (the tracers it holds are not the method's result)
            for atom, trace in receiver.items():
                if isinstance(atom, Sym):
                    out = out.join(self.project_sym(atom, trace, "array"))
        return out

    def traced_attribute(self, atom: Traced, trace: Trace | None, name: str) -> Value:
        """An attribute of a tracer: the array attributes that are arrays give a tracer; the
        others are concrete, or say the value is a container of tracers rather than one."""
        model = self.program.traced_models.get(atom.framework)
        if model is not None and name in model.same_kind_attributes:
            return Value.of(atom, trace)
        return Value.of(UNKNOWN)

    def check_subscript(self, node: cst.Subscript, obj: Value,
                        keys: list[tuple[str, Value]]) -> None:
        """``xs[t]`` on a Python list, tuple or string; ``x[:t]`` on any sequence."""
        if not any(isinstance(a, (Box, Tup, Str, Traced, Sym, HostArray)) for a in obj):
            return
        for detail, key in keys:
            found = self.flat_traced((key,))
            if found:
                sink = "used as an index of `{code}`" if detail == "index" else \
                    "used as a slice bound in `{code}`"
                self.emit("subscript", (obj, found), detail, node, sink)

    def check_membership(self, left: Value, right: Value, node: cst.CSTNode) -> None:
        """``t in [...]``: each comparison's truth is read; so is ``0.5 in t`` (a number,
        or a key the caller passes, compared with each element of a traced array), where a
        key that is no number tests a pytree's keys, which stay concrete in a trace (``"w"
        in params``, a name read from a dict; against an array a string is a TypeError,
        traced or not: checked with jax 0.10.2)."""
        found = self.flat_traced((left,))
        if any(isinstance(a, Const) and isinstance(a.value, (int, float, complex))
               or isinstance(a, Sym) and not a.proj for a in self.constants(left)):
            found = found.join(right.filter(lambda a: isinstance(a, (Traced, Sym))))
        if found and any(isinstance(a, (Box, Tup, Traced, Sym)) for a in right):
            # the container goes with the event: a parameter is judged where its caller
            # says what it is (a list compares items; an object's own __contains__ decides)
            self.emit("concretize", (found, right), "condition", node,
                      "compared as a condition: `{code}`")

    def typed_namespaces(self, test: cst.BaseExpression, values: list[Value]) -> list[Value]:
        """``np if isinstance(x, np.ndarray) else jnp``: a namespace chosen by a type test
        between a foreign one and the framework's mirror of it is the mirror for the
        framework's values (the type test is False for them), and the mirror takes the
        foreign arrays too; else ``values`` as they are."""
        if not (isinstance(test, cst.Call) and dotted_name(test.func) == "isinstance"):
            return values
        names = [{a.qualname for a in v if isinstance(a, Ref)} if all(
            isinstance(a, Ref) for a in v) else set() for v in values]
        for model in self.program.traced_models.values():
            for foreign, mirror in model.foreign_mirrors.items():
                for first, second in ((0, 1), (1, 0)):
                    if names[first] == {foreign} and names[second] == {mirror}:
                        return [values[second]]
        return values

    def note_raised(self, event: Event) -> None:
        """A traced analysis found a sink its tracer breaks: the framework raises there, so
        the statement ends every path through it (what follows never runs in the trace).
        A stored tracer raises nothing yet."""
        if event.kind != "escape":
            self.raised_at = self.anchor

    # ------------------------------------------------------------------ escapes

    def note_outside(self, value: Value) -> None:
        """Objects in ``value`` existed before the trace (read from a global, captured, the
        receiver): what is stored in them outlives it."""
        for atom in value:
            if isinstance(atom, (Box, Inst)) and atom.site is not None:
                self.outside.add(atom)

    def outlives_trace(self, target: Value) -> bool:
        for atom in target:
            if isinstance(atom, (Box, Inst)):
                site = atom.site
                if site is not None and isinstance(site.owner, tuple) and site.owner and \
                        site.owner[0] == "module":
                    return True
                if atom in self.outside:
                    return True
            elif isinstance(atom, Cls):
                return True
            elif isinstance(atom, Ref) and isinstance(atom.key, tuple) and \
                    atom.key[0] == "module":
                return True
        return False

    def note_store(self, target: Value | None, value: Value, node: cst.CSTNode,
                   where: str, hashed: bool = False, into: str = "container") -> Value:
        """A store of ``value`` into ``target`` (None: a global or nonlocal name): when it
        outlives the trace, the tracers in it escape (DL009); ``hashed``: the store hashes
        the value (``set.add``), which fails on a tracer at once. Returns what to store: the
        escaped tracers are left out, so that they are reported once, here."""
        if self.is_module:
            return value
        stored = self.escaping(value)
        if not stored:
            return value
        if target is not None and self.trace is not None:
            static = target.filter(lambda a: isinstance(a, Sym) and a.owner == self.owner)
            if static:
                # a static argument comes from outside the trace: whether it is a container
                # (an object) the tracer can outlive the trace in, each call says
                self.emit("escape_into", (stored, static), into + ("-set" if hashed else ""),
                          node, "stored in " + where + ", which outlives the trace")
        if target is not None and not self.outlives_trace(target):
            return value
        # a set hashes what it is given: a tracer fails there at once (TypeError)
        operation = "escape-set" if hashed or target is not None and any(
            isinstance(a, Box) and a.kind == "set" for a in target) else "escape"
        self.emit("escape", (stored,), operation, node, "stored in " + where + ", which "
                  "outlives the trace")
        escaped = set(stored)
        return value.filter(lambda a: a not in escaped or isinstance(a, Sym)) or Value.of(
            UNKNOWN)

    def escaping(self, value: Value) -> Value:
        """The tracers of this trace in ``value`` (in a summary: its parameters too), also in
        the fields of the objects it holds (a state tuple the trace made)."""
        out = EMPTY
        fields = [self.fields_of(a) for a in value if isinstance(a, Inst)]
        for atom, trace in self.flat_traced((value, *fields)).items():
            if isinstance(atom, Traced):
                if self.trace is None or atom.trace == self.trace.trace_id:
                    out = out.join(Value.of(atom, trace))
            elif isinstance(atom, Sym) and self.trace is None and atom.owner == self.owner:
                out = out.join(Value.of(atom, trace))
        return out


    def fields_of(self, inst: Inst) -> Value:
        """What the fields of ``inst`` hold as this path sees them: those its constructor
        gave it and those the path wrote."""
        names = set(self.program.instance_fields(inst))
        for view in (self.path.view if self.path is not None else {}, self.entry_view or {}):
            names.update(slot[2] for slot in view if slot[0] == "attr" and slot[1] == inst)
        return join_all(
            self.slot_value(("attr", inst, name), self.program.read(
                self.program.field_key(inst, name)), record=False) or EMPTY
            for name in sorted(names))


def _dropped(value: Value, drop: Callable[[object], bool], depth: int = 0) -> Value:
    """``value`` without the atoms ``drop`` names, also inside its tuples (``value`` itself
    when it holds none)."""
    out: dict[object, Trace | None] = {}
    changed = False
    for atom, trace in value.items():
        if drop(atom):
            changed = True
            continue
        if isinstance(atom, Tup) and depth < MAX_TUPLE_DEPTH:
            items = tuple(_dropped(v, drop, depth + 1) for v in atom.items)
            if any(new is not old for new, old in zip(items, atom.items, strict=True)):
                changed = True
                atom = Tup(tuple(v or Value.of(UNKNOWN) for v in items))
        out[atom] = trace
    return Value(out) if changed else value


def store_description(target: cst.BaseExpression) -> str:
    """How a message names the place a value is stored in."""
    name = dotted_name(target) if not isinstance(target, cst.Subscript) else None
    if name is not None:
        return f"`{name}`"
    return "`{code}`"
