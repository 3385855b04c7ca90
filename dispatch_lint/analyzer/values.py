"""Abstract values of the data-flow analysis: atoms, their provenance, and may-sets of atoms.

An atom is one thing a Python value may be at run time, as far as dispatch rules care: a
device of some kind, a tensor on such a device, a program, a function or class of the checked
tree, a container, a string constant, or a symbolic parameter of the function being
summarised. A :class:`Value` is a may-set of atoms, each with the shortest trace that explains
how it got here. Equality of values ignores traces so that fixpoints terminate.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import field
from functools import cached_property
from typing import Any, TypeVar, Union

import libcst as cst

from dispatch_lint.analyzer.bounds import (
    MAX_NESTED_SIZE,
    MAX_NESTING,
    MAX_PROJECTION,
    MAX_REWRAPS,
)
from dispatch_lint.analyzer.frozen import frozen

_T = TypeVar("_T")

__all__ = [
    "AMBIENT",
    "Accessor",
    "EMPTY",
    "ONLY_CAPTURE",
    "UNKNOWN",
    "Atom",
    "Box",
    "Closure",
    "Cls",
    "Dev",
    "Inst",
    "Partial",
    "Place",
    "PartialCall",
    "ProgramAtom",
    "Record",
    "Ref",
    "Site",
    "Step",
    "Str",
    "Const",
    "Sym",
    "Ten",
    "Trace",
    "TraceTransform",
    "Traced",
    "TracedFunction",
    "Tup",
    "Unknown",
    "Value",
    "code_of",
    "squeeze_code",
    "devices_clash",
    "enters_via",
    "has_tensor",
    "is_tensorish",
    "is_traced",
    "certainly_traced",
    "either_assumed",
    "join_all",
    "limit_nesting",
    "site_owners",
    "narrow_capture",
    "narrow_not_capture",
    "replace_fields",
]


def _atom_class(cls: type[_T]) -> type[_T]:
    """A frozen dataclass whose hash is computed once. Atoms are the keys of every
    :class:`Value` and nest (a tensor on a device made at a site, a closure over values),
    so the generated hash, which hashes every field again at each use, was about a tenth of
    an analysis (cProfile over the dev corpus: 2.3 million calls)."""
    made = frozen(cls)
    compute = made.__hash__

    def __hash__(self: Any) -> int:
        known = self.__dict__.get("_hash")
        if known is None:
            known = self.__dict__["_hash"] = compute(self)
        return known

    made.__hash__ = __hash__  # type: ignore[method-assign, assignment]
    return made


# --------------------------------------------------------------------------------------- sites


@_atom_class
class Site:
    """Where a capture device (or container) was made: the making node in file ``file`` plus
    the chain of call nodes that led there, so that two calls of one factory give two devices."""

    file: int
    node: int  # id() of the libcst node; nodes live for the whole run
    owner: object  # key of the function whose execution made it
    context: tuple[int, ...] = ()

    def called_from(self, call: int, owner: object, iteration: tuple[int, ...] = ()
                    ) -> Site:
        """This site as seen from a caller: made inside the call at ``call``, in that item
        of each unrolled loop around it (a call in each item makes objects of its own)."""
        context = (call, *(-1 - i for i in iteration), *self.context)[:3 + len(iteration)]
        return Site(self.file, self.node, owner, context)


# --------------------------------------------------------------------------------------- atoms


@_atom_class
class Dev:
    """A device. ``kind`` is numpy, numba, capture, autodiff or real (a non-capture device we
    know nothing more about). Capture devices are told apart by ``site``; autodiff devices
    carry their ``inner`` device."""

    kind: str
    inner: Dev | None = None
    site: Site | None = None

    @property
    def is_capture(self) -> bool:
        return self.kind == "capture" or (self.inner is not None and self.inner.is_capture)

    @property
    def is_autodiff(self) -> bool:
        return self.kind == "autodiff"

    @property
    def base(self) -> Dev:
        """The plain device under any autodiff wrapper."""
        return self.inner.base if self.inner is not None else self

    def describe(self) -> str:
        if self.kind == "autodiff" and self.inner is not None:
            return f"Autodiff({self.inner.describe()})"
        return {"numpy": "NumPy()", "numba": "Numba()", "capture": "Capture()"}.get(
            self.kind, "a real device"
        )


def devices_clash(a: Dev, b: Dev) -> bool:
    """True when tensors on ``a`` and ``b`` cannot meet in one operation (DeviceMismatchError):
    different devices, except autodiff with plain of the same backend (the result is tracked);
    a real device we know nothing more about clashes only with capture devices."""
    if a == b:
        return False
    if "real" in (a.kind, b.kind) and not (a.is_capture or b.is_capture):
        return False
    if a.is_autodiff != b.is_autodiff and a.base == b.base:
        return False
    return True


@_atom_class
class Ten:
    """A tensor on device ``dev``."""

    dev: Dev


@_atom_class
class Sym:
    """Symbolic atom inside a function summary: parameter ``param`` seen through ``proj``
    (a tuple of projections: "device", "elem", "attr:<name>", "inner", ("item", key),
    conversions ("tensor" | "asdev" | "autodiff", :class:`Place`), ("mix", device): the
    result of an operation with a tensor on that device, ("with", sym): the result of an
    operation with another parameter of the same function, or "operand": the result of an
    operation it took part in, where it is a tensor).
    ``real`` is set once a guard proved it is not a capture tensor."""

    param: int
    proj: tuple[object, ...] = ()
    real: bool = False
    #: key of the function whose parameter this is (closures see their outer function's)
    owner: object = None


#: The parameter index of "the trace the caller runs in": a summary's JAX results are tracers
#: exactly when its caller runs inside a trace (see :mod:`.dataflow.traces`).
AMBIENT = 1_000_000


@_atom_class
class Place:
    """Where a summary converts a caller's value (a device name becoming a device, a tensor
    made on a device it was given): the projection ``(kind, place)`` of a :class:`Sym`
    carries it, so that the caller's trace shows the callee's line and a capture device made
    there is told apart by it."""

    file: int
    node: cst.CSTNode
    template: str
    anchor: cst.CSTNode | None = field(default=None, compare=False, repr=False)
    #: the function it is in
    owner: object = field(default=None, compare=False, repr=False)
    #: the kind of device a caller's ``None`` stands for here (a creator's default: "numpy",
    #: a fresh "capture" for a placeholder, as when the argument is left out); None: no device
    none: str | None = None

    def step(self, template: str | None = None) -> Step:
        return Step(self.file, self.node, template or self.template, self.anchor)


@_atom_class
class Str:
    """A string constant (device names are strings until a runtime function reads them)."""

    text: str


@_atom_class
class Const:
    """``True``, ``False``, ``None`` or a small integer: flags that decide branches."""

    value: object


@_atom_class
class Ref:
    """A named thing the analysis resolves calls through: ``qualname`` of a runtime API,
    a module, or a function/class of the checked tree (then ``key`` identifies its node)."""

    qualname: str
    key: object = None
    #: for bound methods: the receiver
    bound: Any = None
    #: decorated with ``@guards.no_capture``
    no_capture: bool = False


@_atom_class
class Inst:
    """An instance of class ``cls`` (key of a class of the checked tree), made at ``site``
    (None: any instance). Instances made at different places keep their fields apart."""

    cls: object
    site: Site | None = None


@_atom_class
class Cls:
    """A class of the checked tree, as a value."""

    cls: object


@_atom_class
class Closure:
    """A nested function or lambda with the values of its free variables when it was read."""

    key: object
    captured: tuple[tuple[str, Value], ...]
    no_capture: bool = False

    @cached_property
    def nesting(self) -> tuple[int, int]:
        """How deep values nest inside this closure, and its atoms counted through them."""
        return _nesting_of(value for _, value in self.captured)

    @cached_property
    def closures(self) -> dict[object, int]:
        """For each function, how many of its closures nest here along one path at most."""
        return _closures_in(self, (value for _, value in self.captured))

    @cached_property
    def parameters_of(self) -> frozenset[object]:
        """The functions whose symbolic parameters appear inside (see :class:`Sym`)."""
        return _parameters_in(value for _, value in self.captured)

    @cached_property
    def makers_of(self) -> frozenset[object]:
        """What owns the sites of the devices, instances and containers inside (see
        :func:`site_owners`)."""
        return _makers_in(value for _, value in self.captured)


@_atom_class
class Partial:
    """A callable with arguments bound ahead of the call: ``functools.partial(f, *args,
    **kwargs)``, or a function read through an instance (bound to it as a method)."""

    func: Value
    args: tuple[Value, ...] = ()
    kwargs: tuple[tuple[str, Value], ...] = ()


@_atom_class
class Tup:
    """A tuple with a known shape: one value per item. A named tuple's instance (see
    :class:`Record`) also has its field names, one per item."""

    items: tuple[Value, ...]
    names: tuple[str, ...] = ()

    @cached_property
    def nesting(self) -> tuple[int, int]:
        """How deep values nest inside this tuple, and its atoms counted through them."""
        return _nesting_of(self.items)

    @cached_property
    def closures(self) -> dict[object, int]:
        """For each function, how many of its closures nest here along one path at most."""
        return _closures_in(self, self.items)

    @cached_property
    def parameters_of(self) -> frozenset[object]:
        """The functions whose symbolic parameters appear inside (see :class:`Sym`)."""
        return _parameters_in(self.items)

    @cached_property
    def makers_of(self) -> frozenset[object]:
        """What owns the sites of the devices, instances and containers inside (see
        :func:`site_owners`)."""
        return _makers_in(self.items)


@_atom_class
class Accessor:
    """A function of the ``operator`` module that reaches into its argument:
    ``methodcaller(name, *args, **kwargs)`` (kind "method"), ``attrgetter(name)`` ("attr",
    a dotted name), ``itemgetter(key)`` ("item")."""

    kind: str
    name: object
    args: tuple[Value, ...] = ()
    kwargs: tuple[tuple[str, Value], ...] = ()


@_atom_class
class Record:
    """A class made by ``collections.namedtuple(name, fields)``: calling it gives a
    :class:`Tup` with these field names."""

    name: str
    fields: tuple[str, ...]


@_atom_class
class Box:
    """A mutable container (list, dict, set, or an unpacked star target) made at ``site``;
    its contents live in the analysis heap."""

    kind: str
    site: Site


@_atom_class
class Traced:
    """A data-less value of a traced framework (a JAX tracer): a traced parameter, or what a
    trace computed. ``kind`` is ``abstract`` (no value at all) or ``concrete`` (its value is
    known while it is traced: JAX under ``grad`` alone), see :mod:`dispatch_lint.frameworks`.
    ``trace`` is the key of the traced function it belongs to; ``origin`` is ``param`` for a
    traced parameter and what is computed from it, ``op`` for what the framework made inside
    the trace from other values (``jnp.zeros(3)`` under ``jit``)."""

    framework: str
    kind: str
    trace: object
    origin: str = "param"


@_atom_class
class HostArray:
    """A concrete array of another library inside a trace (NumPy's ``np.indices(shape)``):
    indexing it with a tracer converts the tracer, which a traced framework refuses."""


HOST_ARRAY = HostArray()


@_atom_class
class TraceTransform:
    """A function transform as a value (``jax.jit``, or ``functools.partial(jax.jit,
    static_argnums=1)``): ``options`` are the literal options it was given."""

    framework: str
    qualname: str
    options: tuple[tuple[str, object], ...] = ()


@_atom_class
class TracedFunction:
    """A function under transforms (``jax.jit(f)``): calling it traces ``func``. ``chain``
    holds the transforms, innermost first."""

    func: Value
    chain: tuple[TraceTransform, ...]


@_atom_class
class ProgramAtom:
    """An exported program (``dispatch.export``): its ``run`` results are real tensors."""


@_atom_class
class Unknown:
    """Anything the analysis does not model. Never a capture tensor."""


UNKNOWN = Unknown()

#: the name the JAX analysis (traces.py) gives :class:`Partial`
PartialCall = Partial

Atom = Union[Dev, Ten, Sym, Str, Const, Ref, Inst, Cls, Closure, Partial, Tup, Box, ProgramAtom,
             Unknown, Traced, TraceTransform, TracedFunction]


# ------------------------------------------------------------------------------------- traces


@frozen
class Step:
    """One trace step: ``node`` of file ``file``, with a message (positions come later).

    ``template`` may say ``{code}`` for the node's source text: it is rendered only when a
    step ends up in a diagnostic, so the analysis never pays for code generation.
    ``anchor`` is the statement the analysis was running when it made the step: positions
    are found through it (:mod:`dispatch_lint.analyzer.positions`)."""

    file: int
    node: cst.CSTNode
    template: str
    anchor: cst.CSTNode | None = field(default=None, compare=False, repr=False)
    #: the function whose frame the value entered here from its caller (a field of its
    #: receiver): a finding about it is reported where the caller passed the receiver
    via: object = field(default=None, compare=False, repr=False)

    @property
    def message(self) -> str:
        if "{code}" not in self.template:
            return self.template
        return self.template.replace("{code}", code_of(self.node))


def code_of(node: cst.CSTNode, limit: int = 60) -> str:
    """The source text of ``node`` on one line, shortened for messages."""
    try:
        text = cst.Module(body=()).code_for_node(node)
    except Exception:  # noqa: BLE001 - a message must never fail the analysis
        return "..."
    return squeeze_code(text, limit)


def squeeze_code(text: str, limit: int = 60) -> str:
    """Code as messages show it: on one line, its whitespace squeezed, shortened."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Trace:
    """A persistent list of steps, newest last: each node adds one step after its parent, or
    splices a whole trace (``prefix``) before its parent. Extending is O(1); shared tails keep
    traces cheap however long the call chains they follow."""

    __slots__ = ("length", "parent", "prefix", "step")

    def __init__(self, step: Step | None, parent: Trace | None = None,
                 length: int | None = None, prefix: Trace | None = None) -> None:
        self.step = step
        self.parent = parent
        self.prefix = prefix
        if length is None:
            length = (parent.length if parent else 0) + (1 if step is not None else 0)
        self.length = length

    def then(self, step: Step) -> Trace:
        return Trace(step, self, self.length + 1)

    def extend(self, other: Trace | None) -> Trace:
        """This trace's steps, then ``other``'s."""
        if other is None:
            return self
        return Trace(None, other, self.length + other.length, prefix=self)

    def steps(self) -> list[Step]:
        backwards: list[Step] = []
        pending: list[Trace] = [self]
        while pending:
            node: Trace | None = pending.pop()
            while node is not None:
                if node.prefix is not None:
                    pending.append(node.prefix)  # its steps come before the parent's
                elif node.step is not None:
                    backwards.append(node.step)
                node = node.parent
        backwards.reverse()
        return backwards


#: The trace a new tuple starts with: no step, so that the steps the tuple goes through
#: (assigned, stored in a container, returned) are kept for its items (see carried_by)
TUPLE_MADE = Trace(None)


def carried_by(item: Value, trace: Trace | None) -> Value:
    """``item`` taken out of a tuple that went through ``trace`` since it was made: each
    atom's own trace, then the tuple's steps."""
    if trace is None or not trace.length:
        return item
    steps = trace.steps()
    out: dict[Any, Trace | None] = {}
    for atom, own in item.items():
        if own is None:
            out[atom] = None
            continue
        # a step the item took with the tuple is in both (a method's "returned from"): once
        seen = set(own.steps())
        after = own
        for step in steps:
            if step not in seen:
                after = after.then(step)
        out[atom] = after
    return Value(out)


def enters_via(trace: Trace | None, owner: object) -> bool:
    """Whether ``trace`` passes a step where the value entered ``owner``'s frame from its
    caller (see :attr:`Step.via`)."""
    return trace is not None and any(step.via == owner for step in trace.steps())


def _shorter(a: Trace | None, b: Trace | None) -> Trace | None:
    if a is None:
        return b
    if b is None:
        return a
    return b if b.length < a.length else a


# ------------------------------------------------------------------------------------- values


class Value:
    """A may-set of atoms, each with its trace. Immutable; equality ignores traces."""

    __slots__ = ("_atoms", "_hash")

    def __init__(self, atoms: dict[Any, Trace | None] | None = None) -> None:
        self._atoms: dict[Any, Trace | None] = atoms or {}
        self._hash: int | None = None

    @staticmethod
    def of(atom: Any, trace: Trace | None = None) -> Value:
        return Value({atom: trace})

    def __iter__(self) -> Iterator[Any]:
        return iter(self._atoms)

    def items(self) -> Iterable[tuple[Any, Trace | None]]:
        return self._atoms.items()

    def __len__(self) -> int:
        return len(self._atoms)

    def __bool__(self) -> bool:
        return bool(self._atoms)

    def __contains__(self, atom: object) -> bool:
        return atom in self._atoms

    def trace(self, atom: Any) -> Trace | None:
        return self._atoms.get(atom)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Value) and self._atoms.keys() == other._atoms.keys()

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._atoms))
        return self._hash

    def __repr__(self) -> str:
        return f"Value({list(self._atoms)!r})"

    def join(self, other: Value) -> Value:
        if not other._atoms:
            return self
        if not self._atoms:
            return other
        if other._atoms.keys() <= self._atoms.keys():
            return self  # nothing new (the first trace found is kept)
        merged = dict(self._atoms)
        for atom, trace in other._atoms.items():
            merged[atom] = _shorter(merged.get(atom), trace) if atom in merged else trace
        if len(merged) > MAX_ATOMS:
            merged = _widen(merged)
        return Value(merged)

    def filter(self, keep: Any) -> Value:
        return Value({a: t for a, t in self._atoms.items() if keep(a)})

    def map_traces(self, step: Step) -> Value:
        """Every atom's trace extended by ``step`` (an assignment, a call, a return)."""
        return Value(
            {a: (t.then(step) if t is not None else None) for a, t in self._atoms.items()}
        )

    def with_trace(self, atom: Any, trace: Trace | None) -> Value:
        merged = dict(self._atoms)
        merged[atom] = trace
        return Value(merged)


EMPTY = Value()

#: A may-set larger than this keeps only what dispatch rules need (devices, tensors,
#: parameters) and becomes "anything else" for the rest: generic code that piles up
#: objects must not make every join and substitution quadratic.
MAX_ATOMS = 48


#: The atoms a widened value keeps (beside UNKNOWN).
_KEPT = (Dev, Ten, Sym, Traced)


def _widen(atoms: dict[Any, Trace | None]) -> dict[Any, Trace | None]:
    kept = {a: t for a, t in atoms.items() if isinstance(a, _KEPT)}
    kept[UNKNOWN] = None
    return kept


def nesting(value: Value) -> tuple[int, int]:
    """How deep ``value`` nests values inside closures and tuples (0: none), and how many
    atoms it holds counted through them (shared parts count at every place they appear: it
    is the work of walking the value, as substituting or testing it does)."""
    depth = 0
    size = 0
    for atom in value:
        if isinstance(atom, (Closure, Tup)):
            inner_depth, inner_size = atom.nesting
            depth = max(depth, inner_depth)
            size += inner_size
        else:
            size += 1
    return depth, size


def _nesting_of(values: Iterable[Value]) -> tuple[int, int]:
    depth = 0
    size = 1
    for value in values:
        inner_depth, inner_size = nesting(value)
        depth = max(depth, inner_depth + 1)
        size += inner_size
    return depth, size


def _closures_in(atom: Closure | Tup, parts: Iterable[Value]) -> dict[object, int]:
    """For each function, how many of its closures nest in ``atom`` along one path at most."""
    out: dict[object, int] = {}
    for value in parts:
        for inner in value:
            if isinstance(inner, (Closure, Tup)):
                for key, count in inner.closures.items():
                    if count > out.get(key, 0):
                        out[key] = count
    if isinstance(atom, Closure) and atom.captured:
        out[atom.key] = out.get(atom.key, 0) + 1
    return out


_NONE: frozenset[object] = frozenset()


def _parameters_in(parts: Iterable[Value]) -> frozenset[object]:
    owners: set[object] = set()
    for value in parts:
        for atom in value:
            if isinstance(atom, Sym):
                owners.add(atom.owner)
            elif isinstance(atom, (Closure, Tup)):
                owners.update(atom.parameters_of)
    return frozenset(owners) if owners else _NONE


def site_owners(atom: object) -> frozenset[object]:
    """What owns the sites of the capture devices, instances and containers ``atom`` is or
    holds: a summary's substitution makes those of the callee anew, and leaves any atom
    without them or the callee's parameters as it is."""
    if isinstance(atom, (Closure, Tup)):
        return atom.makers_of
    if isinstance(atom, Ten):
        atom = atom.dev
    owners: set[object] = set()
    while isinstance(atom, Dev):
        if atom.site is not None:
            owners.add(atom.site.owner)
        atom = atom.inner
    if isinstance(atom, (Inst, Box)) and atom.site is not None:
        owners.add(atom.site.owner)
    return frozenset(owners) if owners else _NONE


def _makers_in(parts: Iterable[Value]) -> frozenset[object]:
    owners: set[object] = set()
    for value in parts:
        for atom in value:
            if isinstance(atom, (Closure, Tup, Dev, Ten, Inst, Box)):
                owners.update(site_owners(atom))
    return frozenset(owners) if owners else _NONE


def limit_nesting(atom: Closure | Tup) -> Closure | Tup | Unknown:
    """``atom``, or past the nesting bounds the same atom with the closures and tuples inside
    it that break them unknown: those nested deeper than MAX_NESTING, and (in a closure) the
    closures of its own function past MAX_REWRAPS (an attribute re-wrapped at every call,
    ``model.forward = wrap(model.forward)``); past MAX_NESTED_SIZE all of them; unknown when
    even that is too large. The caller tells a limited atom by identity."""
    depth, size = atom.nesting
    key = atom.key if isinstance(atom, Closure) else None
    if (depth <= MAX_NESTING and size <= MAX_NESTED_SIZE
            and (key is None or atom.closures.get(key, 0) <= MAX_REWRAPS)):
        return atom

    def keep(inner: object) -> bool:
        if not isinstance(inner, (Closure, Tup)) or size > MAX_NESTED_SIZE:
            return not _is_nested(inner)
        return inner.nesting[0] < MAX_NESTING and (
            key is None or inner.closures.get(key, 0) < MAX_REWRAPS)

    if isinstance(atom, Tup):
        limited: Closure | Tup = Tup(tuple(_keeping(v, keep) for v in atom.items))
    else:
        limited = Closure(atom.key, tuple((n, _keeping(v, keep)) for n, v in atom.captured),
                          atom.no_capture)
    return limited if limited.nesting[1] <= MAX_NESTED_SIZE else UNKNOWN


def _is_nested(atom: object) -> bool:
    """Whether ``atom`` holds values (a closure's own definition, without captured values,
    does not: it only says which function it is)."""
    return isinstance(atom, Tup) or isinstance(atom, Closure) and bool(atom.captured)


def _keeping(value: Value, keep: Any) -> Value:
    """``value`` with the atoms ``keep`` refuses unknown."""
    if all(keep(a) for a in value):
        return value
    out: dict[Any, Trace | None] = {}
    for atom, trace in value.items():
        if keep(atom):
            out[atom] = trace
        else:
            out.setdefault(UNKNOWN, None)
    return Value(out)


def join_all(values: Iterable[Value]) -> Value:
    """The join of ``values`` (EMPTY for none): ``a.join(b).join(c)...``, the same atoms,
    traces and widening, but merged into one dict instead of copying it at every step (many
    small values joined one by one cost the square of their atoms)."""
    first: Value | None = None
    merged: dict[Any, Trace | None] | None = None
    saturated = False
    for value in values:
        atoms = value._atoms
        if not atoms:
            continue
        if first is None:
            first = value
            continue
        if merged is None:
            if atoms.keys() <= first._atoms.keys():
                continue  # nothing new (the first trace found is kept)
            merged = dict(first._atoms)
        elif atoms.keys() <= merged.keys():
            continue
        if saturated:
            # Widened with more than MAX_ATOMS atoms it keeps: whatever else a join adds,
            # the next widening drops again, so only those atoms are added (and widening
            # again at every step made a long join quadratic).
            for atom, trace in atoms.items():
                if isinstance(atom, _KEPT):
                    merged[atom] = _shorter(merged.get(atom), trace) if atom in merged else trace
            continue
        for atom, trace in atoms.items():
            merged[atom] = _shorter(merged.get(atom), trace) if atom in merged else trace
        if len(merged) > MAX_ATOMS:
            merged = _widen(merged)
            saturated = len(merged) > MAX_ATOMS
    if merged is not None:
        return Value(merged)
    return first if first is not None else EMPTY


# ---------------------------------------------------------------------------- narrowing


def is_tensorish(atom: object) -> bool:
    """A tensor, a tracer, or a parameter that may be either."""
    return isinstance(atom, (Ten, Sym, Traced))


def has_tensor(value: Value) -> bool:
    return any(isinstance(a, (Ten, Sym, Traced)) for a in value)


def is_traced(atom: object) -> bool:
    return isinstance(atom, Traced)


def certainly_traced(value: Value) -> bool:
    """Whether ``value`` is a tracer whatever it turns out to be: a type test against the
    framework's tracer class cannot fail for it. Every atom is a tracer, or the tracers a
    framework result takes from a parameter (the ``made`` projection: inside a trace those
    are tracers or nothing, the trace's own tracer standing beside them)."""
    traced = False
    for atom in value:
        if isinstance(atom, Traced):
            traced = True
        elif not (isinstance(atom, Sym) and atom.proj and (
                atom.proj[-1] == "made" or _untraced_ambient(atom))):
            return False
    return traced


#: Projections of a tracer that give tracers (its items, what it holds, a framework result).
_KEEPS_TRACED = frozenset({"made", "traced", "array", "iter", "elem"})


def _untraced_ambient(atom: Sym) -> bool:
    """A tracer of the trace some function runs in, where a test found it no tracer: none
    (that trace's tracers are tracers, and outside a trace there are none)."""
    if atom.param != AMBIENT or "untraced" not in atom.proj:
        return False
    before = atom.proj[:atom.proj.index("untraced")]
    return all(p in _KEEPS_TRACED or (isinstance(p, tuple) and p and p[0] == "item")
               for p in before)


def either_assumed(a: frozenset[Value], b: frozenset[Value], bound: int
                   ) -> frozenset[Value]:
    """What two ways to one place assumed no tracer (see ``State.assumed``), as one set:
    the place is not reached when one of ``a`` and one of ``b`` are certainly tracers, which
    their join says (a pair's join is certainly a tracer only if both are); past ``bound``
    pairs, the join of all."""
    if not a or not b:
        return frozenset()
    if a == b:
        return a
    if len(a) * len(b) <= bound:
        return frozenset(x.join(y) for x in a for y in b)
    return frozenset({join_all([*a, *b])})


def narrow_not_capture(value: Value) -> Value:
    """``value`` where a guard proved it is not a capture tensor."""
    out: dict[object, Trace | None] = {}
    for atom, trace in value.items():
        if (isinstance(atom, Ten) and atom.dev.is_capture) or (isinstance(atom, Dev)
                                                              and atom.is_capture):
            continue
        if isinstance(atom, Sym) and not atom.real:
            atom = Sym(atom.param, atom.proj, True, atom.owner)
        out[atom] = trace
    return Value(out)


#: the projection of a parameter a guard proved a capture tensor or device (see
#: narrow_capture): at a call, only the argument's capture part takes the guarded path
ONLY_CAPTURE = ("only", "capture")


def narrow_capture(value: Value) -> Value:
    """``value`` where a guard proved it is a capture tensor (a parameter: as its argument
    will be, where the projection fits the bound; beyond it, what the caller passes)."""
    out: dict[object, Trace | None] = {}
    for atom, trace in value.items():
        if isinstance(atom, Sym):
            if atom.real:
                continue
            if atom.proj[-1:] != (ONLY_CAPTURE,) and len(atom.proj) < MAX_PROJECTION - 1:
                atom = Sym(atom.param, (*atom.proj, ONLY_CAPTURE), False, atom.owner)
        elif not ((isinstance(atom, Ten) and atom.dev.is_capture)
                  or (isinstance(atom, Dev) and atom.is_capture)):
            continue
        out[atom] = trace
    return Value(out)


def reads_only(projections: tuple[object, ...]) -> bool:
    """Whether a parameter's projections only read what the caller passed (attributes,
    items, elements), with no conversion or operation among them."""
    return all(isinstance(p, str) or (isinstance(p, tuple) and p[0] in ("item", "get", "getor"))
               for p in projections)


def none_pass(value: Value, narrowed: Value) -> bool:
    """Whether ``value`` holds only tensors and devices, and none of them is in ``narrowed``
    (what a test let through): no value it may be passes the test."""
    return bool(value) and all(isinstance(a, (Ten, Dev)) for a in value) and not any(
        isinstance(a, (Ten, Dev)) for a in narrowed)


def narrow_tuple_item(value: Value, index: int, capture: bool) -> Value:
    """``value`` where a capture test of its item ``index`` (``is_capture(pair[1])``) found it
    a capture tensor (``capture``) or none: each tuple with that item narrowed, those whose
    item cannot pass left out; a parameter gives its projection (``("tuple item", index,
    capture)``), which the caller's substitution applies to what it passed."""
    narrowing = narrow_capture if capture else narrow_not_capture
    out: dict[object, Trace | None] = {}
    for atom, trace in value.items():
        if isinstance(atom, Tup) and -len(atom.items) <= index < len(atom.items):
            item = atom.items[index]
            narrowed = narrowing(item)
            if none_pass(item, narrowed):
                continue  # no tensor it holds there passes: not on this path
            items = list(atom.items)
            items[index] = narrowed
            atom = Tup(tuple(items), atom.names)
        elif isinstance(atom, Sym) and len(atom.proj) < MAX_PROJECTION - 1:
            atom = Sym(atom.param, (*atom.proj, ("tuple item", index, capture)), atom.real,
                       atom.owner)
        out[atom] = trace
    return Value(out)


def narrow_tensor_class(value: Value, truth: bool) -> Value:
    """``value`` where ``isinstance(value, dispatch.Tensor)`` is ``truth``: its tensors, or
    what is no tensor (containers, strings, devices, ...); a parameter gives its projection
    (``("isa", "tensor", truth)``), which the caller's substitution applies to what it
    passed. What is not known stays either way."""
    out: dict[object, Trace | None] = {}
    for atom, trace in value.items():
        if isinstance(atom, Sym):
            if len(atom.proj) < MAX_PROJECTION - 1:
                atom = Sym(atom.param, (*atom.proj, ("isa", "tensor", truth)), atom.real,
                           atom.owner)
        elif isinstance(atom, Ten) != truth and not isinstance(atom, Unknown):
            continue
        out[atom] = trace
    return Value(out)


def replace_fields(value: Value, names: tuple[str, ...], values: tuple[Value, ...]) -> Value:
    """``value._replace(name=new, ...)`` of a named tuple: for each one ``value`` may be, a
    copy with those fields changed; a parameter gives its projection (``("replace", names,
    values)``), which the caller's substitution applies to what it passed."""
    changes = dict(zip(names, values))
    out = EMPTY
    for atom, trace in value.items():
        if isinstance(atom, Tup) and atom.names and set(names) <= set(atom.names):
            items = tuple(changes.get(n, item) for n, item in zip(atom.names, atom.items))
            out = out.join(Value.of(Tup(items, atom.names), trace))
        elif isinstance(atom, Sym):
            proj = (*atom.proj, ("replace", names, values))
            out = out.join(Value.of(Sym(atom.param, proj, atom.real, atom.owner), trace))
    return out or Value.of(UNKNOWN)
