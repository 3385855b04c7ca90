"""How classes work: class bodies, instances, fields, methods, inheritance and ``super()``.

A class of the checked tree is a :class:`~dispatch_lint.analyzer.values.Cls` atom; calling it
makes an :class:`~dispatch_lint.analyzer.values.Inst` told apart by where it was made. Fields
are heap slots per class family (a class and its bases) and instance site; methods are found
along the bases in order. The program keeps the classes (:class:`ClassModel`); the interpreter
stores fields and calls methods (:class:`Instances`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dispatch_lint.analyzer.bounds import MAX_INSTANCE_SITES
from dispatch_lint.analyzer.dataflow.state import State
from dispatch_lint.analyzer.facts import ClassInfo, FuncInfo
from dispatch_lint.analyzer.values import EMPTY, UNKNOWN, Cls, Inst, Ref, Site, Sym, Value

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.analyzer.dataflow.run import FunctionRun


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
        # The class body runs like the code around it, with that code's names as free names.
        body = type(run)(self, run.file, run.owner, run.func, captured=dict(state.env))
        body.site_owner = run.site_owner
        body.class_info = info  # type: ignore[attr-defined]
        body_state = body.run_block(node.body.body, State()) or State()
        for stmt in node.body.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    if small.target.value not in info.fields:
                        info.fields.append(small.target.value)
        for name, value in body_state.env.items():
            funcs = [self.funcs[a.key] for a in value if isinstance(a, Ref) and a.key in
                     self.funcs and self.funcs[a.key].cls is info]
            if funcs:
                info.methods[name] = funcs[0]
            else:
                self.write(self.field_key(Cls(info.key), name), value)
        return info

    def field_key(self, owner: Inst | Cls, name: str) -> tuple[object, ...]:
        """The heap slot of field ``name``: per instance site (None: instances we cannot tell
        apart), or the class's own for class attributes. Subclasses share their base's."""
        site = owner.site if isinstance(owner, Inst) else "class"
        return ("f", self.family(owner.cls), site, name)

    def new_instance(self, cls: object, run: FunctionRun, node: cst.CSTNode) -> Inst:
        """An instance made at ``node``; past a few sites per class they share one slot set,
        so that a class instantiated everywhere does not multiply the summaries."""
        sites = self.instance_sites.setdefault(cls, set())
        site = Site(run.file, id(node), run.site_owner)
        if site not in sites and len(sites) >= MAX_INSTANCE_SITES:
            return Inst(cls)
        sites.add(site)
        return Inst(cls, site)

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
        value = self.read(self.field_key(inst, name)) or EMPTY
        value = value.join(self.read(self.field_key(Cls(inst.cls), name)) or EMPTY)
        return value or Value.of(UNKNOWN)

    def class_attribute(self, cls: Cls, name: str, run: FunctionRun) -> Value:
        method = self.find_method(cls.cls, name)
        if method is not None:
            bound = Value.of(cls) if method.kind == "classmethod" else None
            return Value.of(Ref(method.qualname, key=method.key, bound=bound,
                                no_capture=method.no_capture))
        return self.read(self.field_key(cls, name)) or Value.of(UNKNOWN)

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
        init = self.find_method(cls.cls, "__init__")
        if init is not None:
            self.apply(init, run, Value.of(inst), args, kwargs, node)
        elif cls.cls in self.classes:
            # dataclass-style: annotated class fields are the constructor's parameters
            fields = self._all_fields(cls.cls)
            for index, value in enumerate(args):
                if index < len(fields):
                    self.write(self.field_key(inst, fields[index]), run.concrete_part(value))
                    run.keep_effect(Value.of(inst), "attr:" + fields[index], value)
            for name, value in kwargs.items():
                self.write(self.field_key(inst, name), run.concrete_part(value))
                run.keep_effect(Value.of(inst), "attr:" + name, value)
        return Value.of(inst)

    def _all_fields(self, cls: object) -> list[str]:
        info = self.classes[cls]
        out: list[str] = []
        for base in info.bases:
            if base in self.classes:
                out.extend(self._all_fields(base))
        return out + [f for f in info.fields if f not in out]


class Instances:
    """The interpreter's half: storing attributes and calling methods on instances."""

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
