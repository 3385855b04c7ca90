"""How classes work: class bodies, instances, fields, methods, inheritance and ``super()``.

A class of the checked tree is a :class:`~dispatch_lint.analyzer.values.Cls` atom; calling it
makes an :class:`~dispatch_lint.analyzer.values.Inst` told apart by where it was made. Fields
are heap slots per class family (a class and its bases) and instance site; methods are found
along the bases in order. The program keeps the classes (:class:`ClassModel`); the interpreter
stores fields and calls methods (:class:`Instances`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from dispatch_lint.analyzer.bounds import MAX_INSTANCE_SITES, MAX_TUPLE_DEPTH
from dispatch_lint.analyzer.dataflow.state import State
from dispatch_lint.analyzer.dataflow.syntax import dotted_name, is_constant_false
from dispatch_lint.analyzer.facts import ClassInfo, FieldInfo, FuncInfo
from dispatch_lint.analyzer.values import (
    EMPTY,
    UNKNOWN,
    Box,
    Closure,
    Cls,
    Inst,
    Partial,
    Ref,
    Site,
    Step,
    Str,
    Sym,
    Trace,
    Value,
)

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.analyzer.dataflow.run import FunctionRun

#: The classes of the ``enum`` module a class derives from to be an enum.
_ENUM_BASES = frozenset({"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag",
                         "enum.IntFlag"})


class ClassModel:
    """The program's half: classes, their fields' heap slots, methods and instances."""

    def define_class(self, node: cst.ClassDef, run: FunctionRun, state: State) -> ClassInfo:
        info = self.classes.get(id(node))
        if info is None:
            prefix = run.func.qualname + ".<locals>" if run.func else self.files[run.file].module
            info = ClassInfo(id(node), node, run.file, f"{prefix}.{node.name.value}")
            self.classes[id(node)] = info
        for base in node.bases:
            for atom in run.eval(base.value, state):
                if isinstance(atom, Cls) and atom.cls not in info.bases and atom.cls != info.key:
                    info.bases.append(atom.cls)
                    info.enum = info.enum or self.classes[atom.cls].enum
                elif isinstance(atom, Ref) and atom.qualname in _ENUM_BASES:
                    info.enum = True
        # The class body runs like the code around it, with that code's names as free names.
        body = type(run)(self, run.file, run.owner, run.func, captured=dict(state.env))
        body.site_owner = run.site_owner
        body.class_info = info  # type: ignore[attr-defined]
        body.writes_initial = True  # class attributes are there before any call
        if run.func is not None and not run.is_module:
            # its methods' free names (as the same in every call of the function: its
            # parameters' symbols would never be replaced in the methods' summaries)
            info.captured = {name: run.concrete_part(value) or Value.of(UNKNOWN)
                             for name, value in {**run.captured, **state.env}.items()}
        body_state = body.run_block(node.body.body, State()) or State()
        if not info.dataclass:
            info.dataclass = any(_is_dataclass(body.eval_quiet(_decorated(d), state))
                                 for d in node.decorators)
        self._declare_fields(info, body, body_state)
        for stmt in node.body.body:
            setter = self.funcs.get(id(stmt)) if isinstance(stmt, cst.FunctionDef) else None
            if setter is not None and setter.kind == "setter" and any(
                    isinstance(d.decorator, cst.Attribute) and d.decorator.attr.value == "setter"
                    for d in stmt.decorators):
                info.setters[setter.name] = setter
        for name, value in body_state.env.items():
            funcs = [self.funcs[a.key] for a in value if isinstance(a, Ref) and a.key in
                     self.funcs and self.funcs[a.key].cls is info]
            if funcs:
                info.methods[name] = funcs[0]
            else:
                self.write_field(Cls(info.key), name, value)
        return info

    def _declare_fields(self, info: ClassInfo, body: FunctionRun, state: State) -> None:
        """The annotated fields of a class body and their defaults (plain, or given to
        ``dataclasses.field``), joined over rounds like every other value."""
        for stmt in info.node.body.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if not (isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)):
                    continue
                if _is_class_var(small.annotation.annotation):
                    continue
                name = small.target.value
                found = FieldInfo(name, small, small)
                value = small.value
                if isinstance(value, cst.Call) and any(
                        isinstance(a, Ref) and a.qualname == "dataclasses.field"
                        for a in body.eval_quiet(value.func, state)):
                    for arg in value.args:
                        keyword = arg.keyword.value if arg.keyword is not None else None
                        if keyword == "default":
                            found.default = body.eval(arg.value, state)
                        elif keyword == "default_factory":
                            found.factory = body.eval(arg.value, state)
                        elif keyword == "init":
                            found.init = not is_constant_false(arg.value)
                elif value is not None:
                    found.default = state.env.get(name)
                old = info.fields.get(name)
                if old is not None:
                    found.default = _joined(old.default, found.default)
                    found.factory = _joined(old.factory, found.factory)
                info.fields[name] = found

    def field_key(self, owner: Inst | Cls, name: str) -> tuple[object, ...]:
        """The heap slot of field ``name``: per instance site (None: instances we cannot tell
        apart), subclasses sharing their base's; a class attribute is its own class's (a
        subclass's reads go up its bases, see :meth:`class_level`)."""
        if isinstance(owner, Cls):
            return ("f", owner.cls, "class", name)
        if owner in self.shared and self._merged(owner):
            return ("f", self.family(owner.cls), ("merged", owner.site), name)
        return ("f", self.family(owner.cls), owner.site, name)

    def _merged(self, inst: Inst) -> bool:
        """Whether the shared instance ``inst`` stands for the instances of several calls
        (see :meth:`shared_instance`): its fields are then unknown, never one call's."""
        self.note_read(("merged", inst))
        return inst in self.merged

    def write_field(self, owner: Inst | Cls, name: str, value: Value) -> None:
        """Field ``name`` of ``owner`` may hold ``value`` (joined with what it held); a field of
        an instance several calls share is unknown."""
        self._mark_stored(value, MAX_TUPLE_DEPTH)
        if isinstance(owner, Inst) and owner in self.shared and self._merged(owner):
            value = Value.of(UNKNOWN)
        holder = owner.cls if isinstance(owner, Cls) else self.family(owner.cls)
        names = self.field_names.setdefault((holder, _site_of(owner)), set())
        if name not in names:
            names.add(name)
            self.note_change(("fields", holder, _site_of(owner)))
        self.write(self.field_key(owner, name), value)
        if isinstance(owner, Inst) and owner in self.shared:
            self.write_field(Inst(owner.cls), name, value)

    def _mark_stored(self, value: Value, depth: int) -> None:
        """The objects ``value`` holds, kept in another's field: one object each, whichever
        call of the function made it (see Substitution.atom); so are the containers a
        container kept there holds (a param group's list inside the groups' list)."""
        for atom in value:
            if isinstance(atom, (Inst, Box)) and atom.site is not None and \
                    atom not in self.stored:
                self.stored.add(atom)
                self.note_change(("stored", atom))
                if isinstance(atom, Box) and depth > 0:
                    held = [self.read(("b", atom.site))] + [
                        self.read(("bk", atom.site, key))
                        for key in sorted(self.keys_at.get(atom.site, ()), key=repr)]
                    for content in held:
                        if content:
                            self._mark_stored(content, depth - 1)

    def is_stored(self, inst: Inst | Box) -> bool:
        """Whether ``inst`` is kept in another object's field (then every call of the
        function that made it shares it: the field points at this very one)."""
        self.note_read(("stored", inst))
        return inst in self.stored

    def instance_fields(self, inst: Inst) -> list[str]:
        """The names of the fields constructors gave ``inst`` (what ``vars(obj)`` lists)."""
        family = self.family(inst.cls)
        self.note_read(("fields", family, inst.site))
        return sorted(self.field_names.get((family, inst.site), ()))

    def copy_fields(self, made: Inst, copy: Inst,
                    convert: Callable[[Value], Value] | None = None) -> None:
        """``copy`` (an instance a callee made, as one call returns it) starts with the fields
        the callee gave ``made``, each as ``convert`` sees it in the calling context (the
        containers the callee made for it are this call's own)."""
        family = self.family(made.cls)
        self.note_read(("fields", family, made.site))
        for name in sorted(self.field_names.get((family, made.site), ())):
            value = self.read(self.field_key(made, name))
            if value:
                self.write_field(copy, name, value if convert is None else convert(value))

    def new_instance(self, cls: object, run: FunctionRun, node: cst.CSTNode) -> Inst:
        """An instance made at ``node``; past a few sites per class, the instances made at
        one node share one slot set, whatever call made them, so that a class instantiated
        everywhere does not multiply the summaries (see :meth:`shared_instance`)."""
        sites = self.instance_sites.setdefault(cls, set())
        # each item of an unrolled loop makes an instance of its own, as it makes a container
        # (`probe = Probe(device_for(stage))` for each stage: its fields are that stage's)
        site = self.bounded(Site(run.file, id(node), run.site_owner,
                                 tuple(-1 - i for i in run.iteration)))
        if site not in sites and len(sites) >= MAX_INSTANCE_SITES:
            return self.shared_instance(cls, site, run)
        sites.add(site)
        inst = Inst(cls, site)
        run.made.add(inst)
        return inst

    def shared_instance(self, cls: object, site: Site, run: FunctionRun) -> Inst:
        """The instance of ``cls`` made at ``site``'s node past MAX_INSTANCE_SITES sites of
        the class: one per node, whatever call made it. (One for the whole class joined the
        fields of all its instances: optax's GradientTransformation, made by a hundred
        optimizers, then held a hundred `update` closures, and every `tx.update(...)`
        applied them all.) The nodes are the code's own, so their number grows with the
        code, not with its calls. Their fields are also the class's instance's, ``self`` of
        a method no call reaches (see :meth:`write_field`).

        Once two calls' instances become one, its fields are unknown from then on (what one
        call stored there, capture or not, is never taken for what another's holds), and
        ``run`` (the analysis making or returning the second) says that precision was dropped.
        """
        inst = Inst(cls, Site(site.file, site.node, None))
        first = self.shared.setdefault(inst, site)
        if first != site:
            if inst not in self.merged:
                self.merged.add(inst)
                self.note_change(("merged", inst))
            name = self.classes[cls].node.name.value if cls in self.classes else "a class"
            run.reduced(f"the instances of `{name}` made by different calls are one, with "
                        f"fields unknown (a class's instances are told apart at "
                        f"{MAX_INSTANCE_SITES} sites at most)")
        return inst

    def family(self, cls: object) -> object:
        """Classes related by inheritance share their fields' slots."""
        seen = set()
        while cls in self.classes and cls not in seen:
            seen.add(cls)
            bases = self.classes[cls].bases
            if not bases:
                break
            cls = bases[0]
        return cls

    def find_method(self, cls: object, name: str, skip_self: bool = False) -> FuncInfo | None:
        seen: set[object] = set()
        stack = [cls]
        first = True
        while stack:
            key = stack.pop(0)
            if key in seen or key not in self.classes:
                continue
            seen.add(key)
            info = self.classes[key]
            if not (first and skip_self) and name in info.methods:
                return info.methods[name]
            first = False
            stack.extend(info.bases)
        return None

    def find_setter(self, cls: object, name: str) -> FuncInfo | None:
        """The setter of property ``name`` that ``obj.name = v`` calls on an instance of
        ``cls``, if a class of its bases has one."""
        for key in self._mro(cls):
            setter = self.classes[key].setters.get(name)
            if setter is not None:
                return setter
        return None

    def instance_attribute(self, inst: Inst, name: str, run: FunctionRun,
                           node: cst.CSTNode | None) -> Value:
        method = self.find_method(inst.cls, name)
        if method is not None:
            if method.kind == "property":
                if node is None:
                    return Value.of(UNKNOWN)
                return self.apply(method, run, Value.of(inst), (), {}, node)
            return Value.of(Ref(method.qualname, key=method.key, bound=Value.of(inst),
                                no_capture=method.no_capture))
        value = run.slot_value(("attr", inst, name), self.read(self.field_key(inst, name))
                               ) or EMPTY
        if not (value and self._generated_field(inst.cls, name)):
            # the class attribute, unless the generated __init__ set the instance's own;
            # a function stored in the class (a decorated method) is bound to the instance
            held = self.class_level(inst.cls, name, run)
            for atom, trace in (held or EMPTY).items():
                if isinstance(atom, Closure) or (isinstance(atom, Ref) and atom.key in self.funcs):
                    atom = Partial(Value.of(atom, trace), (Value.of(inst),))
                value = value.join(Value.of(atom, trace))
        if value and run.receives(inst):
            # the caller made the receiver what it is: note where the value came in
            where = node if node is not None else run.anchor
            if where is not None:
                entered = Step(run.file, where, f"read from `self.{name}`", run.anchor,
                               via=run.owner)
                # (an object held there, traced or not, says so too: its own fields came
                # from the caller as well, `self.model.weight`)
                value = Value({a: t.then(entered) if t is not None else (
                    Trace(entered) if isinstance(a, Inst) else None)
                    for a, t in value.items()})
                for atom in value:
                    if isinstance(atom, Box):
                        run.via_boxes.setdefault(atom, entered)
        return value or Value.of(UNKNOWN)

    def class_attribute(self, cls: Cls, name: str, run: FunctionRun) -> Value:
        method = self.find_method(cls.cls, name)
        if method is not None:
            bound = Value.of(cls) if method.kind == "classmethod" else None
            return Value.of(Ref(method.qualname, key=method.key, bound=bound,
                                no_capture=method.no_capture))
        held = self.class_level(cls.cls, name, run)
        info = self.classes.get(cls.cls)
        if held and info is not None and info.enum and not name.startswith("_"):
            return self.enum_member(info, name, held)
        return held or Value.of(UNKNOWN)

    def is_enum(self, cls: object) -> bool:
        """Whether ``cls`` is a class of the tree deriving from ``enum.Enum``."""
        info = self.classes.get(cls)
        return info is not None and info.enum

    def enum_member(self, info: ClassInfo, name: str, held: Value) -> Value:
        """Member ``name`` of the enum class ``info``: an instance of it (one per member)
        whose ``value`` is what the class body assigned and whose ``name`` is ``name``
        (``Backend.EXPORT.value`` is the device string ``"capture"``)."""
        member = Inst(info.key, Site(info.file, id(info.node), ("enum", name)))
        self.write_field(member, "value", held)
        self.write_field(member, "name", Value.of(Str(name)))
        return Value.of(member)

    def class_level(self, cls: object, name: str, run: FunctionRun) -> Value | None:
        """Class attribute ``name`` as ``cls`` sees it: the nearest class of its bases that
        holds one (a subclass's ``DEVICE = "numpy"`` hides its base's ``"capture"``)."""
        for key in self._mro(cls) or [cls]:
            owner = Cls(key)
            self.note_read(("fields", key, "class"))
            start = self.read(self.field_key(owner, name)) if name in self.field_names.get(
                (key, "class"), ()) else None
            held = run.slot_value(("attr", owner, name), start)
            if held:
                return held
        return None

    def super_value(self, run: FunctionRun) -> Value:
        func = run.func
        if func is None or func.cls is None:
            return Value.of(UNKNOWN)
        receiver = run.self_value or Value.of(Inst(func.cls.key))
        return Value.of(Ref("<super>", key=("super", func.cls.key), bound=receiver))

    def super_attribute(self, ref: Ref, name: str) -> Value:
        cls_key = ref.key[1]  # type: ignore[index]
        method = self.find_method(cls_key, name, skip_self=True)
        if method is None:
            return Value.of(UNKNOWN)
        return Value.of(Ref(method.qualname, key=method.key, bound=ref.bound,
                            no_capture=method.no_capture))

    def instantiate(self, cls: Cls, run: FunctionRun, args: tuple[Value, ...],
                    kwargs: dict[str, Value], node: cst.Call) -> Value:
        inst = self.new_instance(cls.cls, run, node)
        constructor = self._constructor(cls.cls)
        if isinstance(constructor, FuncInfo):
            self.apply(constructor, run, Value.of(inst), args, kwargs, node)
        elif constructor is not None:
            self._generated_init(inst, constructor, run, args, kwargs, node)
            post_init = self.find_method(cls.cls, "__post_init__")
            if post_init is not None:
                self.apply(post_init, run, Value.of(inst), (), {}, node)
        return Value.of(inst)

    def _constructor(self, cls: object) -> FuncInfo | ClassInfo | None:
        """What runs when ``cls`` is called: the first ``__init__`` along the bases, or the
        ``__init__`` a dataclass generates (a class with annotated fields and no ``__init__``
        of its own is taken as one: NamedTuple, attrs and the like)."""
        for key in self._mro(cls):
            info = self.classes[key]
            if info.dataclass:
                return info
            if "__init__" in info.methods:
                return info.methods["__init__"]
        if cls in self.classes and self._all_fields(cls):
            return self.classes[cls]
        return None

    def _generated_init(self, inst: Inst, info: ClassInfo, run: FunctionRun,
                        args: tuple[Value, ...], kwargs: dict[str, Value], node: cst.Call
                        ) -> None:
        """The ``__init__`` a dataclass generates: each field from its argument, else from
        its default or by calling its default factory."""
        fields = self._all_fields(info.key)
        positional = list(args)
        for field_info in fields.values():
            name = field_info.name
            if field_info.init and positional:
                value = positional.pop(0)
            elif field_info.init and name in kwargs:
                value = kwargs[name]
            else:
                value = self._field_default(field_info, info, run, node)
                if value is None:
                    continue
            value = value.map_traces(run.step(node, f"field `{name}` of `{{code}}`"))
            self.write_field(inst, name, run.concrete_part(value))
            run.keep_effect(Value.of(inst), "attr:" + name, value)

    def _field_default(self, field_info: FieldInfo, owner: ClassInfo, run: FunctionRun,
                       node: cst.Call) -> Value | None:
        """A field's value when its argument is not given: its default, or what its default
        factory makes for this instance (the trace starts at the field's line)."""
        if field_info.factory is not None:
            made = run.call_value(field_info.factory, (), {}, node)
        elif field_info.default is not None:
            made = field_info.default
        else:
            return None
        declared = Step(self._field_file(owner, field_info), field_info.node,
                        f"default of field `{field_info.name}`: `{{code}}`", field_info.anchor)
        return Value({atom: Trace(declared).extend(trace) for atom, trace in made.items()})

    def _field_file(self, owner: ClassInfo, field_info: FieldInfo) -> int:
        for key in self._mro(owner.key):
            info = self.classes[key]
            if info.fields.get(field_info.name) is field_info:
                return info.file
        return owner.file

    def _generated_field(self, cls: object, name: str) -> bool:
        """Whether the generated ``__init__`` of ``cls`` sets field ``name`` on every instance."""
        constructor = self._constructor(cls)
        return isinstance(constructor, ClassInfo) and name in self._all_fields(constructor.key)

    def bases_of(self, cls: object) -> set[object]:
        """``cls`` and every base of it in the checked tree."""
        return set(self._mro(cls))

    def generated_fields(self, cls: object) -> tuple[str, ...] | None:
        """The parameters of the ``__init__`` a dataclass generates (its ``__match_args__``),
        None when ``cls`` has no generated ``__init__``."""
        constructor = self._constructor(cls)
        if not isinstance(constructor, ClassInfo):
            return None
        return tuple(f.name for f in self._all_fields(constructor.key).values() if f.init)

    def _mro(self, cls: object) -> list[object]:
        """``cls`` and its bases of the checked tree, nearest first (depth first)."""
        out: list[object] = []
        stack = [cls]
        while stack:
            key = stack.pop(0)
            if key in out or key not in self.classes:
                continue
            out.append(key)
            stack[:0] = self.classes[key].bases
        return out

    def _all_fields(self, cls: object) -> dict[str, FieldInfo]:
        """The fields of ``cls`` and its bases, bases' first (a redeclared field keeps its
        place and takes the subclass's default), as the generated ``__init__`` orders them."""
        out: dict[str, FieldInfo] = {}
        for key in reversed(self._mro(cls)):
            for name, field_info in self.classes[key].fields.items():
                out[name] = field_info
        return out


def _site_of(owner: Inst | Cls) -> object:
    return owner.site if isinstance(owner, Inst) else "class"


def _decorated(decorator: cst.Decorator) -> cst.BaseExpression:
    expr = decorator.decorator
    return expr.func if isinstance(expr, cst.Call) else expr


def _is_dataclass(value: Value) -> bool:
    return any(isinstance(a, Ref) and a.qualname in _DATACLASS_DECORATORS for a in value)


#: Decorators whose classes get an ``__init__`` generated from their annotated fields.
_DATACLASS_DECORATORS = frozenset({
    "dataclasses.dataclass", "attr.s", "attr.define", "attr.frozen", "attrs.define",
    "attrs.frozen", "attr.attrs",
})


def _is_class_var(annotation: cst.BaseExpression) -> bool:
    """``ClassVar[...]`` annotations declare class attributes, not fields."""
    if isinstance(annotation, cst.Subscript):
        annotation = annotation.value
    name = dotted_name(annotation)
    return name is not None and name.rsplit(".", 1)[-1] == "ClassVar"


def _joined(old: Value | None, new: Value | None) -> Value | None:
    if old is None:
        return new
    return old if new is None else old.join(new)


class Instances:
    """The interpreter's half: storing attributes and calling methods on instances."""

    def store_attr(self, obj: Value, name: str, value: Value, state: State | None = None,
                   initial: bool | None = None) -> None:
        """``obj.name = value``: where the program starts from (a constructor, a class body,
        a module top level: the heap), else on this path (see :mod:`.views`)."""
        if initial is None:
            initial = self.writes_initial
        for atom in obj:
            if isinstance(atom, (Inst, Cls)):
                if not initial or self.builds(atom):
                    self.write_slot(("attr", atom, name), value, state)
                    continue
                self.program.write_field(atom, name, self.concrete_part(value))
                if isinstance(atom, Inst):
                    self.keep_effect(Value.of(atom), "attr:" + name, value)
                    if atom.site is not None and atom.site.owner == self.site_owner and any(
                            self.is_symbolic(a) for a in value):
                        # an object this run made of its parameters (`Holder(t).read()`):
                        # on this path its field holds them, as the caller will see it
                        self.write_slot(("attr", atom, name), value, state)
            elif isinstance(atom, Sym):
                self.keep_effect(Value.of(atom), "attr:" + name, value)
                if not initial:
                    self._store_through_parameter(atom, name, value, state)
            elif isinstance(atom, Box) and atom.kind == "ns":  # a namespace's attribute
                self.store_item(Value.of(atom), name, value)
            elif isinstance(atom, Ref) and isinstance(atom.key, tuple) and atom.key[0] == "module":
                if initial:
                    self.program.write(("g", atom.key[1], name), self.concrete_part(value))
                else:
                    self.write_slot(("g", atom.key[1], name), value, state)

    def _store_through_parameter(self, atom: Sym, name: str, value: Value,
                                 state: State | None) -> None:
        """``obj.name = value`` where ``obj`` is a parameter holding instances of the tree in
        this calling context: the methods called on ``obj`` later on this path read the new
        value (replacing the old one when ``obj`` is exactly one instance). A function stored
        there is left to the heap: one wrapping the field's old value at each call
        (``model.forward = wrap(model.forward)``) nests past the bound on closures, and only
        the heap's join keeps the function it wraps in reach then."""
        if any(isinstance(a, (Closure, Partial)) for a in value):
            return
        anchor = self.anchor if self.anchor is not None else cst.Pass()
        instances = [a for a in self.objects_of(atom, anchor)
                     if isinstance(a, Inst) and a.site is not None]
        for inst in instances:
            if len(instances) == 1:
                self.write_slot(("attr", inst, name), value, state)
            else:
                self.add_to_view(("attr", inst, name), value, state)

    def call_method(self, inst: Inst, name: str, args: tuple[Value, ...],
                    kwargs: dict[str, Value], node: cst.CSTNode | None, receiver: Value) -> Value:
        func = self.program.find_method(inst.cls, name)
        if func is None and name == "_replace" and isinstance(node, cst.Call) and \
                self.program.generated_fields(inst.cls) is not None:
            return self.replaced_instance(receiver, kwargs, node)  # a NamedTuple class's
        if func is None:
            attr = self.program.instance_attribute(inst, name, self, node)
            if node is None or not isinstance(node, cst.Call):
                return Value.of(UNKNOWN)
            # a callable held in a field (`self.model(x)`: its __call__) or the class
            return self.call_value(attr.filter(lambda a: a != inst), args,
                                   kwargs, node)
        if node is None:
            return Value.of(UNKNOWN)
        return self.program.apply(func, self, receiver, args, kwargs, node)
