"""Function summaries and their instantiation at a call.

A :class:`Summary` says what a call of a function does over its symbolic parameters
(:class:`~dispatch_lint.analyzer.values.Sym`): its return value, the events it could not judge
alone, its effects on the heap. :class:`Substitution` puts a caller's arguments in place of the
parameters, which gives context sensitivity (a helper called with a capture tensor in one place
and a real one in another reports only the first) and puts the callee's trace steps behind the
caller's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import libcst as cst

from dispatch_lint.analyzer.bounds import MAX_INSTANCE_SITES
from dispatch_lint.analyzer.events import Event
from dispatch_lint.analyzer.facts import FuncInfo
from dispatch_lint.analyzer.values import (
    AMBIENT,
    EMPTY,
    ONLY_CAPTURE,
    UNKNOWN,
    Box,
    Closure,
    Const,
    Dev,
    Inst,
    Partial,
    Place,
    Site,
    Step,
    Str,
    Sym,
    Ten,
    Trace,
    TracedFunction,
    Tup,
    Value,
    certainly_traced,
    join_all,
    narrow_capture,
    narrow_not_capture,
    narrow_tensor_class,
    narrow_tuple_item,
    replace_fields,
    site_owners,
)


class Analysis(Protocol):
    """What instantiating a summary needs of the whole program: where things are made."""

    instance_sites: dict[object, set[Site]]
    literal_keys: dict[Site, set[str]]

    def note_key_order(self, site: Site, order: tuple[str, ...] | None) -> None: ...

    def bounded(self, site: Site) -> Site: ...

    def copy_fields(self, made: Inst, copy: Inst,
                    convert: Callable[[Value], Value] | None = None) -> None: ...

    def is_stored(self, inst: Inst | Box) -> bool: ...

    def shared_instance(self, cls: object, site: Site, run: Caller) -> Inst: ...


class Caller(Protocol):
    """What instantiating a summary needs of the calling function's analysis
    (:class:`~dispatch_lint.analyzer.dataflow.FunctionRun`): its place, and the operations
    that apply a parameter's projections to the argument."""

    file: int
    anchor: cst.CSTNode | None
    site_owner: object
    work: int

    def attribute(self, obj: Value, name: str, node: cst.CSTNode) -> Value: ...

    def item(self, obj: Value, key: object, node: cst.CSTNode | None = None) -> Value: ...

    def elements(self, value: Value) -> Value: ...

    def reduced(self, why: str) -> None: ...

    def contents(self, value: Value) -> Value: ...

    def get_item(self, obj: Value, key: str, node: cst.CSTNode) -> Value: ...

    def holds_key(self, box: Box, key: str) -> bool: ...

    def as_device(self, value: Value, node: cst.CSTNode, place: Place | None = None
                  ) -> Value: ...

    def make_device(self, kind: str, node: cst.CSTNode, place: Place | None = None) -> Dev: ...

    def project_sym(self, atom: Sym, trace: Trace | None, proj: object) -> Value: ...

    def only_autodiff(self, value: Value, autodiff: bool) -> Value: ...
    def traced_part(self, value: Value, depth: int = 0, items: bool = True,
                    made: bool = False) -> Value: ...

    def ambient(self) -> Value: ...

    def untraced(self, value: Value) -> Value: ...

    def combine(self, a: object, a_trace: Trace | None, b: object, b_trace: Trace | None
                ) -> Value: ...

    def limited(self, atom: Closure | Tup) -> object: ...


@dataclass(frozen=True)
class Summary:
    """What a call of a function does, over its symbolic parameters."""

    ret: Value
    events: tuple[Event, ...]
    #: heap writes through what the caller passes: (target, "attr:<name>" | "elem" |
    #: ("item", key), value); (target, "moved", nothing): the items of a list it passes
    #: were removed or reordered
    effects: tuple[tuple[Value, object, Value], ...]
    #: what owns the sites of what it makes (the number the program gave its key)
    owner: object = None
    #: the targets of its effects that it makes itself at each call and never reads from
    #: a global or an object from before a trace: a store into one, replayed inside a
    #: trace, is into the object this very call made (the same abstract object also stands
    #: for those earlier calls made, which a state of the program may hold, see DL009)
    fresh: frozenset[object] = frozenset()
    #: False when every path through the function raises: code after its call is dead
    returns_normally: bool = True
    #: the sinks on the caller's values (their nodes' ids) that every normal return passed:
    #: a call where one of them always raises raises whatever way it takes
    passes: frozenset[int] = frozenset()
    #: what the function returns when it is a capture test of a parameter (or of a field of
    #: one): (parameter, field or "", True when it returns is_capture(...), False for `not`,
    #: the kind of test: see ``conditions.CAPTURE_TEST`` / ``TRACED_TEST``)
    guard: tuple[int, str, bool, str] | None = None
    #: parameters known not to be capture tensors whenever the function returns (it raises
    #: for them otherwise): the caller's arguments are narrowed after the call
    sanitizes: frozenset[int] = frozenset()
    #: what it writes to heap slots, seen after the call (see :mod:`.dataflow.views`):
    #: (slot, value, written on every path), and the slots it (or a callee) reads
    view_out: tuple[tuple[tuple[object, ...], Value, bool], ...] = ()
    reads: frozenset[tuple[object, ...]] = frozenset()
    #: parameters it compares with None: a caller that certainly passes something for one
    #: gets a summary made for that (see ``CallModel._context``)
    none_tests: frozenset[int] = frozenset()
    #: the key of the unit that made it (its function, closure, receiver and context)
    key: object = None
    #: when some `return` is on a path that tested a parameter (``return "" if
    #: t.is_capture else ".3f"``): what each return gives, with what its path assumed (see
    #: Conditions.assume); a call gets only the returns its arguments can reach
    ret_parts: tuple[tuple[frozenset[Value], Value], ...] = ()
    #: capture tensors it (or a function it calls) makes on a capture device of its own:
    #: a call inside ``guards.training()`` creates them there (DL001)
    made_capture: Value = EMPTY

    def boxes_made_by(self, owner: object) -> frozenset[object]:
        """Containers the function (``owner``) makes and fills (every write to one is an
        effect, see FunctionRun.keep_effect): each call gets its own, which the effects fill,
        so that contexts do not leak into each other (allocation sites per call chain)."""
        return frozenset(
            a for target, _, _ in self.effects for a in target
            if isinstance(a, Box) and a.site.owner == owner
        )

    def signature(self) -> tuple[object, ...]:
        return (
            self.ret,
            frozenset((e.kind, id(e.sink.node), e.values, e.assumes) for e in self.events),
            frozenset(self.effects),
            self.returns_normally,
            self.guard,
            self.sanitizes,
            frozenset(self.view_out),
            self.reads,
            self.none_tests,
            self.ret_parts,
            self.made_capture,
        )


EMPTY_SUMMARY = Summary(EMPTY, (), ())


class Substitution:
    """Instantiates a callee's summary values in one calling context."""

    def __init__(self, program: Analysis, run: Caller, info: FuncInfo, summary: Summary,
                 bound: dict[int, Value], node: cst.CSTNode) -> None:
        self.program = program
        self.run = run
        self.info = info
        self.bound = bound
        self.node = node
        #: what the callee's summary made (capture devices, containers, instances) is made
        #: anew at every call
        self.made_by = summary.owner
        self.per_call_boxes = summary.boxes_made_by(summary.owner)
        #: atoms that came from the caller's arguments: findings must involve one of them
        self.fresh: set[object] = set()
        #: those that are tensors the callee made (on a device the caller gave), with the
        #: function that made them: findings about them are reported in its frame
        self.born: dict[object, object] = {}
        #: each value substituted so far, by identity (kept alive with its result)
        self.done: dict[int, tuple[Value, Value]] = {}
        #: each parameter projection's value in this call, before its own trace
        self.projected: dict[Sym, Value] = {}
        #: the function that made what each projection converts into a tensor (see born)
        self.makers: dict[Sym, object] = {}

    def value(self, value: Value) -> Value:
        # One value is often shared: a store into every object a parameter may be leaves
        # one effect per object, all with the same value; closures share captured values.
        done = self.done.get(id(value))
        if done is not None and done[0] is value:
            return done[1]
        if not any(self.changes(atom) for atom in value):
            # Most of what a summary holds (other functions' objects, strings, unknowns)
            # means the same in every calling context: it is kept as it is, not rebuilt.
            self.run.work += len(value)
            return value
        out: dict[object, Trace | None] = {}
        for atom, trace in value.items():
            for new_atom, new_trace in self.atom(atom, trace).items():
                old = out.get(new_atom)
                if new_atom not in out or (old is not None and new_trace is not None
                                           and new_trace.length < old.length):
                    out[new_atom] = new_trace
        result = Value(out)
        self.done[id(value)] = (value, result)
        return result

    def changes(self, atom: object) -> bool:
        """Whether substituting ``atom`` may change it: it is or holds a parameter of the
        callee, or something the callee makes anew at every call."""
        if isinstance(atom, Sym):
            return atom.owner == self.info.key
        if isinstance(atom, (Tup, Closure)):
            return self.info.key in atom.parameters_of or self.made_by in atom.makers_of
        if isinstance(atom, Partial):
            return any(self.changes(a) for v in (atom.func, *atom.args,
                                                 *(v for _, v in atom.kwargs)) for a in v)
        if isinstance(atom, (Dev, Ten, Inst, Box)):
            return self.made_by in site_owners(atom)
        return False

    def atom(self, atom: object, trace: Trace | None) -> Value:
        self.run.work += 1
        if isinstance(atom, Sym) and atom.owner == self.info.key:
            return self.symbol(atom, trace)
        if isinstance(atom, Tup):
            return Value.of(self.run.limited(Tup(tuple(self.value(v) for v in atom.items))),
                            trace)
        if isinstance(atom, Partial):
            return Value.of(Partial(self.value(atom.func), tuple(self.value(v) for v in atom.args),
                                    tuple((k, self.value(v)) for k, v in atom.kwargs)), trace)
        if isinstance(atom, Closure) and atom.captured:
            captured = tuple((n, self.value(v)) for n, v in atom.captured)
            return Value.of(self.run.limited(Closure(atom.key, captured, atom.no_capture)),
                            trace)
        if isinstance(atom, TracedFunction):
            return Value.of(TracedFunction(self.value(atom.func), atom.chain), trace)
        if isinstance(atom, (Dev, Ten)):
            return Value.of(self.resite(atom), trace)
        if isinstance(atom, Inst) and atom.site is not None and atom.site.owner == self.made_by \
                and not self.program.is_stored(atom):
            site = self.program.bounded(atom.site.called_from(id(self.node), self.run.site_owner, self.run.iteration))
            sites = self.program.instance_sites.setdefault(atom.cls, set())
            if site in sites or len(sites) < MAX_INSTANCE_SITES:
                sites.add(site)
                copy = Inst(atom.cls, site)
            else:
                copy = self.program.shared_instance(atom.cls, site, self.run)
            self.program.copy_fields(atom, copy, self.per_call)
            return Value.of(copy, trace)
        if isinstance(atom, Box) and atom in self.per_call_boxes:
            # a container the callee made and filled with its parameters: one per call, also
            # one kept in a field (each instance a factory builds has its own list); the
            # fields of the instances it made point at it (see per_call)
            site = self.program.bounded(atom.site.called_from(id(self.node), self.run.site_owner, self.run.iteration))
            keys = self.program.literal_keys.get(atom.site)
            if keys:  # the keys its literal was written with, as the callee's
                self.program.literal_keys.setdefault(site, set()).update(keys)
            if atom.site in self.program.key_orders:  # and in the order it wrote them
                self.program.note_key_order(site, self.program.key_orders[atom.site])
            return Value.of(Box(atom.kind, site), trace)
        return Value.of(atom, trace)

    def per_call(self, value: Value) -> Value:
        """A field of an instance the callee made, as this call's copy holds it: the
        containers and capture devices the callee made anew at every call are this call's
        (the capture device a classmethod factory makes and its layers' tensors' device stay
        one device), the rest as it is."""
        if not any(isinstance(a, (Box, Dev, Ten)) for a in value):
            return value
        return join_all(self.atom(a, t) if isinstance(a, (Box, Dev, Ten)) else Value.of(a, t)
                        for a, t in value.items())

    def slot(self, slot: tuple[object, ...]) -> tuple[object, ...]:
        """A heap slot the callee wrote, as the caller sees it: a field of an instance the
        callee made belongs to this call's copy of it."""
        if slot[0] == "bk" and isinstance(slot[2], Sym):  # under a device's name
            slot = (*slot[:2], self.key(slot[2]))
        if slot[0] in ("attr", "b", "bk", "len", "tail", "ends") and isinstance(slot[1], (Inst, Box)):
            made = next(iter(self.atom(slot[1], None)))
            return (slot[0], made, *slot[2:])
        return slot

    def key(self, key: object) -> object:
        """A key of the callee's (a device's name, :class:`Sym`) as the caller's constant,
        else what the caller's device name is: unknown, or the caller's own symbol."""
        if not isinstance(key, Sym):
            return key
        names = list(self.value(Value.of(key)))
        if len(names) == 1 and isinstance(names[0], (Str, Sym)):
            return names[0].text if isinstance(names[0], Str) else names[0]
        return UNKNOWN

    def returned(self, summary: Summary) -> Value:
        """What the call returns: the callee's returns on the paths its arguments can take."""
        if not summary.ret_parts:
            return self.value(summary.ret)
        reached = [value for assumed, value in summary.ret_parts
                   if not any(self.refutes(a) for a in assumed)]
        return self.value(join_all(reached)) if reached else self.value(summary.ret)

    def refutes(self, assumption: Value) -> bool:
        """Whether what this call passes leaves nothing through the test that narrowed a
        parameter to ``assumption`` on a path of the callee (``if is_capture(t):``,
        ``if not dev.is_autodiff:``; see Conditions.assume): that path is not taken here."""
        if not assumption or not all(isinstance(a, Sym) and a.owner == self.info.key
                                     for a in assumption):
            return False
        for atom in assumption:
            assert isinstance(atom, Sym)
            last = atom.proj[-1] if atom.proj else None
            if atom.real:  # found no capture tensor: refuted where the argument surely is one
                arg = self.value(Value.of(Sym(atom.param, atom.proj, False, atom.owner)))
                if not arg or narrow_not_capture(arg):
                    return False
            elif last == ONLY_CAPTURE or (isinstance(last, tuple) and last[0] == "only"):
                arg = self.value(Value.of(Sym(atom.param, atom.proj[:-1], False, atom.owner)))
                if not arg or not all(_certainly_fails(a, last) for a in arg):
                    return False
            else:
                return False
        return True

    def resite(self, atom: object) -> object:
        """Capture devices made inside the callee are new at every call."""
        if isinstance(atom, Ten):
            return Ten(self.resite(atom.dev))  # type: ignore[arg-type]
        if isinstance(atom, Dev):
            if atom.inner is not None:
                return Dev(atom.kind, self.resite(atom.inner), atom.site)  # type: ignore[arg-type]
            if atom.site is not None and atom.site.owner == self.made_by:
                return Dev(atom.kind, None, self.program.bounded(
                    atom.site.called_from(id(self.node), self.run.site_owner, self.run.iteration)))
        return atom

    def symbol(self, atom: Sym, trace: Trace | None) -> Value:
        # One parameter's projection (``cfg.attr:x``) recurs in many of the summary's events,
        # effects and results: projected once per call, its own trace put behind each time.
        value = self.projected.get(atom)
        if value is None:
            value = self.projected[atom] = self.project_symbol(atom)
        maker = self.makers.get(atom)
        out: dict[object, Trace | None] = {}
        for new_atom, new_trace in value.items():
            if new_trace is not None and trace is not None:
                new_trace = new_trace.extend(trace)
            out[new_atom] = new_trace
            self.fresh.add(new_atom)
            if maker is not None and isinstance(new_atom, Ten):
                self.born[new_atom] = maker
        return Value(out)

    def born_in(self, values: tuple[Value, ...]) -> dict[object, object]:
        """:attr:`born` for an event over the callee's ``values``: a tensor one of them has
        from the caller as it is (a parameter the caller passed, not converted here) is not
        born in the callee, whatever else made the same atom (``pred - ones(device=
        pred.device)`` came from the caller's ``pred``)."""
        if not self.born:
            return self.born
        passed = {new for value in values for atom in value
                  if isinstance(atom, Sym) and atom in self.projected
                  and self.makers.get(atom) is None
                  for new in self.projected[atom] if new in self.born}
        if not passed:
            return self.born
        return {atom: maker for atom, maker in self.born.items() if atom not in passed}

    def heap_changed(self) -> None:
        """The caller's heap was written (an effect replayed): a projection through an
        attribute or item must read it again."""
        self.projected.clear()

    def project_symbol(self, atom: Sym) -> Value:
        """What the caller's argument for ``atom``'s parameter is through its projections."""
        arg = self.bound.get(atom.param, Value.of(UNKNOWN))
        if atom.param == AMBIENT:
            value = arg  # the trace the caller runs in: nothing is passed
        else:
            if atom.param < len(self.info.params):
                template = f"passed to `{{code}}` as `{self.info.params[atom.param].name}`"
            else:  # the value a generator's `yield` gives (see CallModel.apply's `sent`)
                template = "sent by `{code}`"
            passed = Step(self.run.file, self.node, template, self.run.anchor)
            value = Value({
                a: (t.then(passed) if t is not None else None) for a, t in arg.items()
            })
        run = self.run
        maker = None
        supplied = False
        for proj in atom.proj:
            if isinstance(proj, tuple) and proj[0] == "tensor" and isinstance(proj[1], Place):
                maker = proj[1].owner
            if isinstance(proj, tuple) and proj[0] == "with":
                partner = self.symbol(proj[1], None)
                # an operation with a tensor the caller passed: what it gives came from the
                # caller too, not only from what the callee made (see born)
                supplied = supplied or self.makers.get(proj[1]) is None
                run.work += len(value) * len(partner)
                value = join_all(
                    run.combine(a, a_trace, b, b_trace)
                    for a, a_trace in value.items() for b, b_trace in partner.items()
                ) if value and partner else value.join(partner)
                continue
            if isinstance(proj, tuple) and proj[0] == "replace":  # the callee's new fields
                proj = ("replace", proj[1], tuple(self.value(v) for v in proj[2]))
            if isinstance(proj, tuple) and proj[0] == "lookup":  # this call's container
                proj = ("lookup", next(iter(self.atom(proj[1], None))))
            run.work += len(value)  # each step reads the attribute or items of every atom
            value = project(run, value, proj, self.node)
            if not value:
                break  # no tracer found to be none: a value of a path not taken here
        if atom.real:
            value = narrow_not_capture(value)
        self.makers[atom] = None if supplied else maker
        return value


def _certainly_fails(atom: object, test: tuple[object, ...]) -> bool:
    """Whether a caller's ``atom`` certainly fails the test the projection ``test`` of a
    narrowed parameter stands for (``("only", "capture" | "autodiff" | "plain")``)."""
    devices = atom.dev if isinstance(atom, Ten) else atom
    if not isinstance(devices, Dev):
        return False  # a value not known (or no device at all) may pass
    if test == ONLY_CAPTURE:
        return not devices.is_capture
    return devices.is_autodiff != (test[1] == "autodiff")


def _get_or_default(run: Caller, value: Value, proj: tuple[object, ...], node: cst.CSTNode
                    ) -> Value:
    """``value.get(key, default)`` (``proj`` is ``("getor", key, default)``): the item, and
    the default unless every dict ``value`` may be certainly holds the key."""
    key, default = proj[1], proj[2]
    out = EMPTY
    lacking = False
    for atom, trace in value.items():
        if isinstance(atom, Sym):
            out = out.join(run.project_sym(atom, trace, proj))
            continue
        out = out.join(run.get_item(Value.of(atom, trace), key, node))  # type: ignore[arg-type]
        if not (isinstance(atom, Box) and atom.kind == "dict"
                and run.holds_key(atom, key)):  # type: ignore[arg-type]
            lacking = True
    if lacking:
        out = out.join(default)  # type: ignore[arg-type]
    return out or Value.of(UNKNOWN)


def project(run: Caller, value: Value, proj: object, node: cst.CSTNode) -> Value:
    """Apply one symbolic projection (see :class:`Sym`) to a concrete value."""
    if isinstance(proj, tuple) and proj[0] == "item":
        return run.item(value, proj[1], node)
    if isinstance(proj, tuple) and proj[0] == "get":
        return run.get_item(value, proj[1], node)
    if isinstance(proj, tuple) and proj[0] == "getor":
        return _get_or_default(run, value, proj, node)
    if isinstance(proj, tuple) and isinstance(proj[1], Place):
        return convert(run, value, proj[0], proj[1], node)
    if isinstance(proj, tuple) and proj[0] == "replace":  # a named tuple's `_replace`
        return replace_fields(value, proj[1], proj[2])
    if isinstance(proj, tuple) and proj[0] == "lookup":  # `cache[str(device)]`
        return join_all(run.project_sym(a, t, proj) if isinstance(a, Sym) else run.item(
            Value.of(proj[1]), a.text if isinstance(a, Str) else None, node)
            for a, t in value.items()) or Value.of(UNKNOWN)
    if proj == "str":  # `str(device)`: the name of a device made nowhere in particular
        return join_all(Value.of(Str(a.describe())) if isinstance(a, Dev) and not a.is_capture
                        and a.kind != "real" else run.project_sym(a, t, proj)
                        if isinstance(a, Sym) else Value.of(UNKNOWN)
                        for a, t in value.items()) or Value.of(UNKNOWN)
    if proj == ONLY_CAPTURE or isinstance(proj, tuple) and proj[0] == "only":
        # A branch a capture test (or one on `.is_autodiff`) took: nothing, when every value
        # the caller passes certainly fails the test (the path is not taken at this call).
        if value and all(_certainly_fails(atom, proj) for atom in value):
            return EMPTY
        if proj == ONLY_CAPTURE:
            return narrow_capture(value) or Value.of(UNKNOWN)
        return run.only_autodiff(value, proj[1] == "autodiff")
    if isinstance(proj, tuple) and proj[0] == "tuple item":  # a branch on is_capture(p[i])
        return narrow_tuple_item(value, proj[1], proj[2])
    if isinstance(proj, tuple) and proj[0] == "isa":  # a branch on isinstance(t, Tensor)
        return narrow_tensor_class(value, proj[2])
    if isinstance(proj, tuple) and proj[0] == "with":
        # An operation with another parameter: only a call's substitution knows what that
        # one holds (Substitution.project_symbol); the result is no function or object.
        return Value.of(UNKNOWN)
    if isinstance(proj, tuple):  # ("mix", device): an operation with a tensor on that device
        # (a value not known stays partly unknown: never certainly on that device)
        partner = Value.of(Ten(proj[1]))
        out = join_all(
            run.combine(atom, trace, p_atom, p_trace) if isinstance(atom, (Ten, Sym))
            else Value.of(p_atom, trace).join(Value.of(atom, trace)) if atom is UNKNOWN
            else Value.of(p_atom, trace)
            for atom, trace in value.items() for p_atom, p_trace in partner.items()
        )
        return out or Value.of(UNKNOWN)
    if proj == "traced":
        return run.traced_part(value) or Value.of(UNKNOWN)
    if proj == "made":
        # a framework result of it: inside a trace, the trace's tracer stands beside it
        # (the callee's ambient one), so a value without tracers adds nothing
        return run.traced_part(value, made=True) or (EMPTY if run.ambient() else
                                                     Value.of(UNKNOWN))
    if proj == "array":
        return run.traced_part(value, items=False) or Value.of(UNKNOWN)
    if proj == "untraced":
        # the caller's value where a test found it no tracer: none, if it certainly is one
        # (the path that tested it is not taken in this call)
        return EMPTY if certainly_traced(value) else run.untraced(value)
    if proj == "operand":  # the result of an operation with it: no Python number alone
        return join_all(run.project_sym(a, t, proj) if isinstance(a, Sym) else Value.of(a, t)
                        for a, t in value.items() if not isinstance(a, (Const, Str))
                        ) or Value.of(UNKNOWN)
    if proj == "device":
        return run.attribute(value, "device", node)
    if proj == "elem":
        return run.contents(value)
    if proj == "iter":
        return run.elements(value)
    if isinstance(proj, str) and proj.startswith("attr:"):
        return run.attribute(value, proj[5:], node)
    out = EMPTY
    for atom, trace in value.items():
        if isinstance(atom, Sym):
            out = out.join(run.project_sym(atom, trace, proj))
        elif proj == "inner" and isinstance(atom, Ten):
            out = out.join(Value.of(Ten(atom.dev.inner or atom.dev), trace))
    return out or Value.of(UNKNOWN)


def convert(run: Caller, value: Value, kind: str, place: Place, node: cst.CSTNode) -> Value:
    """What the callee's conversion at ``place`` makes of the caller's ``value``: a device
    (``asdev``), a tensor on it (``tensor``) or an autodiff device over it (``autodiff``)."""
    out = EMPTY
    for atom, trace in value.items():
        if isinstance(atom, Sym):
            out = out.join(run.project_sym(atom, trace, (kind, place)))
            continue
        if kind == "autodiff" and not isinstance(atom, (Dev, Str)):
            continue
        if atom is UNKNOWN:
            out = out.join(Value.of(UNKNOWN))  # a device (or a tensor on one) not known
            continue
        if atom == Const(None) and place.none is not None:
            # left to the callee's default: the device it makes when none is given (born
            # there: where the None came from says nothing of it)
            devices = Value.of(run.make_device(place.none, node, place))
        else:
            devices = run.as_device(Value.of(atom, trace), node, place)
        for dev, dev_trace in devices.items():
            if not isinstance(dev, Dev):
                continue
            if kind == "tensor":
                step = place.step()
                out = out.join(Value.of(Ten(dev), dev_trace.then(step) if dev_trace is not None
                                        else Trace(step)))
            elif kind == "autodiff":
                out = out.join(Value.of(Dev("autodiff", inner=dev), dev_trace))
            else:
                out = out.join(Value.of(dev, dev_trace))
    return out or Value.of(UNKNOWN)
