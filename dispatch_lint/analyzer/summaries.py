"""The whole-program part of the analysis: modules, functions, classes, the heap, summaries.

:class:`Program` holds every checked module, resolves qualified names through the modules'
imports (absolute, relative, aliased, re-exported), and computes a :class:`Summary` for every
function, method, closure and lambda on demand, bottom-up: a call analyses its callee first.
Whole rounds repeat until no summary and no heap slot (module globals, ``self.`` fields,
container contents) changes, which also settles recursion and values that flow through
globals and fields. Findings are collected in the last round only, so they reflect the
fixpoint.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import libcst as cst

from dispatch_lint.analyzer import model
from dispatch_lint.analyzer.dataflow import FunctionRun, State, dotted_name
from dispatch_lint.analyzer.events import Event, Hit
from dispatch_lint.analyzer.values import (
    EMPTY,
    UNKNOWN,
    Box,
    Closure,
    Cls,
    Const,
    Dev,
    Inst,
    Ref,
    Site,
    Step,
    Str,
    Sym,
    Ten,
    Trace,
    Tup,
    Value,
    join_all,
)

__all__ = ["ClassInfo", "FileInfo", "Finding", "FuncInfo", "Program", "Summary"]

#: Whole-program rounds; values only grow, so this bound is reached only on pathological code.
MAX_ROUNDS = 8
#: Unit analyses per function allowed over all rounds before the fixpoint is cut short.
ROUND_BUDGET = 4
#: Instances of one class told apart by where they are made, up to this many sites.
MAX_INSTANCE_SITES = 8
#: Contexts in which one node's capture devices and containers are told apart.
MAX_SITES_PER_NODE = 8
#: Calling contexts (objects passed as arguments) a function is summarised for.
MAX_CONTEXTS = 8


@dataclass
class FileInfo:
    """One parsed module of the checked tree."""

    index: int
    path: str
    module: str
    is_package: bool
    tree: cst.Module


@dataclass
class ParamInfo:
    name: str
    node: cst.CSTNode
    kind: str  # "pos", "kwonly", "star", "kwstar"


@dataclass
class FuncInfo:
    """A function, method, nested function or lambda of the checked tree."""

    key: int
    node: cst.FunctionDef | cst.Lambda
    file: int
    name: str
    qualname: str
    params: list[ParamInfo]
    cls: ClassInfo | None = None
    #: function, method, staticmethod, classmethod, property, setter
    kind: str = "function"
    nested: bool = False
    no_capture: bool = False
    defaults: dict[int, Value] = field(default_factory=dict)


@dataclass
class ClassInfo:
    """A class of the checked tree: its methods, its bases, its dataclass-style fields."""

    key: int
    node: cst.ClassDef
    file: int
    qualname: str
    bases: list[int] = field(default_factory=list)
    methods: dict[str, FuncInfo] = field(default_factory=dict)
    fields: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Summary:
    """What a call of a function does, over its symbolic parameters."""

    ret: Value
    events: tuple[Event, ...]
    effects: tuple[tuple[Value, str, Value], ...]
    #: the summary's key: sites of what it makes belong to it
    owner: object = None

    def boxes_made_by(self, owner: object) -> frozenset[object]:
        """Containers the function (``owner``) makes and fills with its parameters' values:
        each call gets its own (the effects fill it), so contexts do not leak into each other."""
        return frozenset(
            a for target, _, _ in self.effects for a in target
            if isinstance(a, Box) and a.site.owner == owner
        )

    def signature(self) -> tuple[object, ...]:
        return (
            self.ret,
            frozenset((e.kind, id(e.sink.node), e.values) for e in self.events),
            frozenset(self.effects),
        )


EMPTY_SUMMARY = Summary(EMPTY, (), ())


@dataclass
class Unit:
    """One analysed unit (a module's top level or a summary): when it was analysed, what it
    read (heap slots, callee summaries) and what it found."""

    stamp: int
    #: each heap slot or summary it read, with the clock when it first read it
    reads: dict[object, int] = field(default_factory=dict)
    findings: dict[tuple[str, int, int], Finding] = field(default_factory=dict)


@dataclass(frozen=True)
class Finding:
    """A rule hit at a place: the event it judged and what it found."""

    hit: Hit
    event: Event


class Program:
    """All checked modules and the analysis state shared by their functions."""

    def __init__(self, files: Sequence[FileInfo], user: model.Model,
                 judge: Callable[[Event], Iterable[Hit]]) -> None:
        self.files = list(files)
        self.user = user
        self.rules_judge = judge
        self.modules: dict[str, int] = {}
        for info in self.files:
            # The runtime is modelled, never analysed, even when its sources are checked.
            if not info.module.startswith("dispatch_lint"):
                self.modules.setdefault(info.module, info.index)
        self.funcs: dict[int, FuncInfo] = {}
        self.classes: dict[int, ClassInfo] = {}
        self.heap: dict[tuple[object, ...], Value] = {}
        self.summaries: dict[tuple[object, ...], Summary] = {}
        self.done: set[tuple[object, ...]] = set()
        self.in_progress: set[tuple[object, ...]] = set()
        self.modules_done: set[int] = set()
        self.errors: dict[int, str] = {}
        # Incremental rounds: each unit (a module's top level, a summary) remembers what it
        # read and what it found; a later round redoes it only when something it read changed.
        self.clock = 0
        self.analyses = 0
        self.changed_at: dict[object, int] = {}
        self.units: dict[object, Unit] = {}
        self.unit_stack: list[Unit] = []
        self.instance_sites: dict[object, set[Site]] = {}
        self.contexts: dict[int, set[tuple[object, ...]]] = {}
        self.node_sites: dict[tuple[int, int], set[Site]] = {}
        self.changed = False
        self._free_names: dict[int, frozenset[str]] = {}

    # ------------------------------------------------------------------------ driver

    def run(self) -> None:
        """Analyse every module and function to the fixpoint."""
        for _ in range(MAX_ROUNDS):
            self.changed = False
            self.done = set()
            self.modules_done = set()
            for info in self.files:
                self.analyze_module(info.index)
            for key in list(self.funcs):
                self.summary(self.funcs[key], None)
            if not self.changed:
                break
            if self.analyses > ROUND_BUDGET * (len(self.funcs) + len(self.files)) + 500:
                break  # pathological code: keep the last round's results

    def analyze_module(self, file: int) -> None:
        if file in self.modules_done or file in self.errors:
            return
        self.modules_done.add(file)
        key = ("module", file)
        if not self.outdated(key):
            return
        info = self.files[file]
        run = FunctionRun(self, file, key, None, is_module=True)
        self.begin_unit(key)
        try:
            run.run_block(info.tree.body, State())
        except RecursionError:
            self.errors[file] = "internal error: code nested too deeply to analyse"
        except Exception as exc:  # noqa: BLE001 - one file's failure must not stop the run
            self.errors[file] = f"internal error: {type(exc).__name__}: {exc}"
        finally:
            self.unit_stack.pop()

    # ------------------------------------------------------------------------ units

    def begin_unit(self, key: object) -> None:
        self.analyses += 1
        unit = Unit(self.clock)
        self.units[key] = unit
        self.unit_stack.append(unit)

    def outdated(self, key: object) -> bool:
        """Whether the unit ``key`` must be (re)analysed: never done, or something changed
        after it first read it (what it wrote itself before reading it does not count)."""
        unit = self.units.get(key)
        if unit is None:
            return True
        changed_at = self.changed_at
        return any(changed_at.get(dep, -1) >= first for dep, first in unit.reads.items())

    def note_read(self, dep: object) -> None:
        if self.unit_stack:
            self.unit_stack[-1].reads.setdefault(dep, self.clock)

    def note_change(self, dep: object) -> None:
        self.changed = True
        self.changed_at[dep] = self.clock
        self.clock += 1

    @property
    def findings(self) -> dict[tuple[str, int, int], Finding]:
        """Every unit's findings from its latest analysis."""
        out: dict[tuple[str, int, int], Finding] = {}
        for unit in self.units.values():
            for key, finding in unit.findings.items():
                old = out.get(key)
                if old is None or _trace_len(finding.hit.trace) < _trace_len(old.hit.trace):
                    out[key] = finding
        return out

    # ------------------------------------------------------------------------- heap

    def write(self, key: tuple[object, ...], value: Value) -> None:
        if not value:
            return
        old = self.heap.get(key)
        new = value if old is None else old.join(value)
        if old is None or new != old:
            self.note_change(key)
        self.heap[key] = new

    def read(self, key: tuple[object, ...]) -> Value | None:
        self.note_read(key)
        return self.heap.get(key)

    def global_value(self, file: int, name: str) -> Value | None:
        key = ("g", file, name)
        if key not in self.heap and file not in self.modules_done:
            self.analyze_module(file)
        return self.read(key)

    def box_item(self, box: Box, key: object) -> Value:
        if key is not None:
            exact = self.read(("bk", box.site, key))
            if exact is not None:
                return exact
        return self.read(("b", box.site)) or EMPTY

    # ------------------------------------------------------------------- resolution

    def absolute_module(self, file: int, node: cst.ImportFrom) -> str | None:
        """The module an ``ImportFrom`` names, relative imports resolved."""
        name = dotted_name(node.module) if node.module is not None else ""
        if not node.relative:
            return name
        info = self.files[file]
        package = info.module.split(".")
        if not info.is_package:
            package = package[:-1]
        up = len(node.relative) - 1
        if up > len(package):
            return None
        base = package[: len(package) - up] if up else package
        return ".".join([*base, name] if name else base)

    def resolve(self, qualname: str) -> Value | None:
        """What ``qualname`` denotes in the checked tree, or None when it is outside it."""
        if qualname in self.modules:
            return Value.of(Ref(qualname, key=("module", self.modules[qualname])))
        parts = qualname.split(".")
        for i in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:i])
            if module in self.modules:
                value = self.global_value(self.modules[module], parts[i])
                if value is None or i + 1 < len(parts):
                    return None
                return value
        return None

    def star_names(self, module: str) -> dict[str, Value]:
        file = self.modules.get(module)
        if file is None:
            return {}
        self.analyze_module(file)
        names = {}
        for key, value in list(self.heap.items()):
            if key[0] == "g" and key[1] == file and not str(key[2]).startswith("_"):
                self.note_read(key)
                names[key[2]] = value
        return names

    # ------------------------------------------------------------- functions, classes

    def define_function(self, node: cst.FunctionDef | cst.Lambda, run: FunctionRun,
                        state: State) -> FuncInfo:
        info = self.funcs.get(id(node))
        if info is None:
            info = self._new_function(node, run, state)
            self.funcs[id(node)] = info
        for index, param in enumerate(all_params(node.params)):
            if param.default is not None:
                value = run.eval(param.default, state)
                old = info.defaults.get(index)
                info.defaults[index] = value if old is None else old.join(value)
        return info

    def _new_function(self, node: cst.FunctionDef | cst.Lambda, run: FunctionRun,
                      state: State) -> FuncInfo:
        file = self.files[run.file]
        cls: ClassInfo | None = getattr(run, "class_info", None)
        name = node.name.value if isinstance(node, cst.FunctionDef) else "<lambda>"
        if cls is not None:
            qualname = f"{cls.qualname}.{name}"
        elif run.func is not None:
            qualname = f"{run.func.qualname}.<locals>.{name}"
        else:
            qualname = f"{file.module}.{name}"
        kind = "method" if cls is not None else "function"
        no_capture = False
        if isinstance(node, cst.FunctionDef):
            for decorator in node.decorators:
                expr = decorator.decorator
                target = expr.func if isinstance(expr, cst.Call) else expr
                if isinstance(target, cst.Attribute) and target.attr.value in ("setter",
                                                                              "deleter"):
                    kind = "setter"
                    continue
                for atom in run.eval_quiet(target, state):
                    if not isinstance(atom, Ref):
                        continue
                    if model.runtime_name(atom.qualname) == "no_capture":
                        no_capture = True
                    short = atom.qualname.rsplit(".", 1)[-1]
                    if cls is not None and short in ("staticmethod", "classmethod", "property",
                                                     "cached_property"):
                        kind = "property" if short == "cached_property" else short
        params = [
            ParamInfo(p.name.value, p.name, kind_of(p, node.params))
            for p in all_params(node.params)
        ]
        return FuncInfo(
            key=id(node), node=node, file=run.file, name=name, qualname=qualname,
            params=params, cls=cls, kind=kind,
            nested=run.func is not None and cls is None or isinstance(node, cst.Lambda),
            no_capture=no_capture,
        )

    def function_value(self, info: FuncInfo) -> Value:
        if info.nested:
            return Value.of(Closure(info.key, (), info.no_capture))
        return Value.of(Ref(info.qualname, key=info.key, no_capture=info.no_capture))

    def free_names(self, key: int) -> frozenset[str]:
        names = self._free_names.get(key)
        if names is None:
            found: set[str] = set()
            stack: list[cst.CSTNode] = [self.funcs[key].node]
            while stack:
                node = stack.pop()
                if isinstance(node, cst.Name):
                    found.add(node.value)
                stack.extend(node.children)
            names = frozenset(found)
            self._free_names[key] = names
        return names

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
        body = FunctionRun(self, run.file, run.owner, run.func, captured=dict(state.env))
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

    def bounded(self, site: Site) -> Site:
        """``site``, or once a node has made things in too many contexts, the one site all
        later contexts share (precision traded for a bounded heap)."""
        sites = self.node_sites.setdefault((site.file, site.node), set())
        if site in sites:
            return site
        if len(sites) >= MAX_SITES_PER_NODE:
            return Site(site.file, site.node, None)
        sites.add(site)
        return site

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

    # ------------------------------------------------------------------ summaries

    def summary(self, info: FuncInfo, closure: Closure | None,
                self_cls: Inst | Cls | None = None, context: tuple[object, ...] = ()
                ) -> Summary:
        """The summary of ``info`` (a closure: with its captured values; a method: for the
        receiver ``self_cls``, so that ``self.forward()`` in a base class reaches the
        subclass's override and each instance's fields stay its own)."""
        key: tuple[object, ...] = (info.key, closure.captured if closure else None, self_cls,
                                   context)
        dep = ("s", key)
        if key in self.done or key in self.in_progress:
            self.note_read(dep)
            return self.summaries.get(key, EMPTY_SUMMARY)
        if info.file in self.errors:
            self.note_read(dep)
            return EMPTY_SUMMARY
        if key in self.summaries and not self.outdated(key):
            self.done.add(key)
            self.note_read(dep)
            return self.summaries[key]
        self.in_progress.add(key)
        self.begin_unit(key)
        try:
            summary = self._summarize(info, closure, self_cls, dict(context), key)
        except RecursionError:
            self.errors[info.file] = "internal error: code nested too deeply to analyse"
            summary = EMPTY_SUMMARY
        except Exception as exc:  # noqa: BLE001 - one file's failure must not stop the run
            self.errors[info.file] = f"internal error: {type(exc).__name__}: {exc}"
            summary = EMPTY_SUMMARY
        finally:
            self.in_progress.discard(key)
            self.unit_stack.pop()
        self.done.add(key)
        old = self.summaries.get(key)
        if old is None or old.signature() != summary.signature():
            self.note_change(dep)
        self.summaries[key] = summary
        # Read once made: the caller goes on with this very summary, so only a later change
        # (recursion settling, a later round) makes the caller outdated.
        self.note_read(dep)
        return summary

    def _summarize(self, info: FuncInfo, closure: Closure | None,
                   self_cls: Inst | Cls | None, context: dict[int, Value], key: object
                   ) -> Summary:
        captured = {name: value for name, value in closure.captured if name} if closure else {}
        run = FunctionRun(self, info.file, info.key, info, captured=captured)
        run.param_context = context
        run.site_owner = key
        state = State()
        for index, param in enumerate(info.params):
            if index == 0 and info.cls is not None and info.kind in ("method", "property",
                                                                     "setter"):
                state.env[param.name] = Value.of(self_cls or Inst(info.cls.key))
                run.self_value = state.env[param.name]
            elif index == 0 and info.cls is not None and info.kind == "classmethod":
                state.env[param.name] = Value.of(self_cls or Cls(info.cls.key))
            else:
                step = Step(info.file, param.node, f"parameter `{param.name}` of `{info.name}()`",
                            info.node if isinstance(info.node, cst.FunctionDef) else None)
                state.env[param.name] = Value.of(
                    Sym(index, (), info.no_capture, info.key), Trace(step))
        if isinstance(info.node, cst.Lambda):
            ret = run.eval(info.node.body, state)
            run.returns = run.returns.join(ret)
            end: State | None = None
        else:
            end = run.run_block(info.node.body.body, state)
        ret = run.returns
        if end is not None:
            ret = ret.join(Value.of(UNKNOWN))
        return Summary(ret, tuple(run.pending.values()), tuple(run.effects.values()), key)

    # ------------------------------------------------------------------------ calls

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

    def apply(self, info: FuncInfo, run: FunctionRun, receiver: Value | None,
              args: tuple[Value, ...], kwargs: dict[str, Value], node: cst.CSTNode,
              closure: Closure | None = None) -> Value:
        """The value of calling ``info`` at ``node`` of ``run``: the summary instantiated
        with the arguments; its pending events are judged here, its effects replayed."""
        self_cls: Inst | Cls | None = None
        if info.cls is not None and receiver is not None:
            # one summary per receiver: its class decides overrides, its site its fields
            receivers = [a for a in receiver if isinstance(a, (Inst, Cls))]
            if len(receivers) > 1:
                return join_all(
                    self.apply(info, run, Value.of(r), args, kwargs, node, closure)
                    for r in receivers
                )
            if receivers and receivers[0] not in (Inst(info.cls.key), Cls(info.cls.key)):
                self_cls = receivers[0]
        bound = self._bind(info, run, node, receiver, args, kwargs)
        summary = self.summary(info, closure, self_cls, self._context(info, bound))
        if info.no_capture or (closure is not None and closure.no_capture):
            flat = [run.elements(v).join(v) for v in bound.values() if v]
            if flat:
                run.emit("no_capture", tuple(flat), info.name, node,
                         f"passed to `@guards.no_capture` function `{info.name}()`")
        subst = Substitution(self, run, info, summary, bound, node)
        for event in summary.events:
            values = tuple(subst.value(v) for v in event.values)
            moved = Event(event.kind, values, event.detail, run.file, node, event.sink,
                          event.rule, run.anchor)
            self.judge(moved, fresh=subst.fresh)
            if any(run.is_symbolic(a) for v in values for a in v):
                run.keep_pending(moved)
        for target, proj, value in summary.effects:
            new_target = subst.value(target)
            new_value = subst.value(value)
            if proj.startswith("attr:"):
                run.store_attr(new_target, proj[5:], new_value)
            elif proj.startswith("item:"):
                key = ast.literal_eval(proj[5:])
                for atom in new_target:
                    if isinstance(atom, Box):
                        self.write(("bk", atom.site, key), run.box_part(atom, new_value))
            else:
                run.store_item(new_target, None, new_value)
        ret = subst.value(summary.ret)
        return ret.map_traces(Step(run.file, node, "returned from `{code}`", run.anchor))

    def _context(self, info: FuncInfo, bound: dict[int, Value]) -> tuple[object, ...]:
        """The objects of the checked tree passed to ``info``, per parameter: the summary
        is made for them so that calls through parameters resolve (bounded per function)."""
        from dispatch_lint.analyzer.dataflow import is_callable_object

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

    def user_model_call(self, qualname: str, run: FunctionRun, args: tuple[Value, ...],
                        kwargs: dict[str, Value], node: cst.Call) -> Value | None:
        """Calls of the user's own sources, sinks and sanitizers (``[tool.dispatch-lint]``)."""
        user = self.user
        for sink in user.sinks.get(qualname, ()):
            if isinstance(sink.arg, int):
                value = args[sink.arg] if sink.arg < len(args) else None
            else:
                value = kwargs.get(sink.arg)
            if value is not None and any(isinstance(a, (Ten, Sym)) for a in value):
                run.emit("user_sink", (value,), qualname, node,
                         "passed to `{code}` (a configured sink)", rule=sink.rule)
        if qualname in user.sources:
            dev = run.make_device("capture", node)
            trace = Trace(Step(run.file, node, "born from `{code}` (a configured source)",
                               run.anchor))
            return Value({dev: trace, Ten(dev): trace})
        if qualname in user.sanitizers:
            from dispatch_lint.analyzer.dataflow import narrow_not_capture

            return narrow_not_capture(args[0]) if args else Value.of(UNKNOWN)
        return None

    # ------------------------------------------------------------------------ rules

    def judge(self, event: Event, fresh: set[object] | None) -> None:
        """Let the rules judge ``event``; keep their hits (only those that involve ``fresh``
        atoms when the event comes from a callee, so no finding is reported twice)."""
        for hit in self.rules_judge(event):
            if fresh is not None and not any(c in fresh for c in hit.culprits):
                continue
            key = (hit.rule, event.file, id(event.node))
            findings = self.unit_stack[-1].findings
            old = findings.get(key)
            if old is None or _trace_len(hit.trace) < _trace_len(old.hit.trace):
                findings[key] = Finding(hit, event)


def _trace_len(trace: Trace | None) -> int:
    return trace.length if trace is not None else 0


def all_params(params: cst.Parameters) -> list[cst.Param]:
    out = [*params.posonly_params, *params.params]
    if isinstance(params.star_arg, cst.Param):
        out.append(params.star_arg)
    out.extend(params.kwonly_params)
    if params.star_kwarg is not None:
        out.append(params.star_kwarg)
    return out


def kind_of(param: cst.Param, params: cst.Parameters) -> str:
    if param is params.star_arg:
        return "star"
    if param is params.star_kwarg:
        return "kwstar"
    if param in params.kwonly_params:
        return "kwonly"
    return "pos"


class Substitution:
    """Instantiates a callee's summary values in one calling context."""

    def __init__(self, program: Program, run: FunctionRun, info: FuncInfo, summary: Summary,
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

    def value(self, value: Value) -> Value:
        out: dict[object, Trace | None] = {}
        for atom, trace in value.items():
            for new_atom, new_trace in self.atom(atom, trace).items():
                old = out.get(new_atom)
                if new_atom not in out or (old is not None and new_trace is not None
                                           and new_trace.length < old.length):
                    out[new_atom] = new_trace
        return Value(out)

    def atom(self, atom: object, trace: Trace | None) -> Value:
        if isinstance(atom, Sym) and atom.owner == self.info.key:
            return self.symbol(atom, trace)
        if isinstance(atom, Tup):
            return Value.of(Tup(tuple(self.value(v) for v in atom.items)), trace)
        if isinstance(atom, Closure) and atom.captured:
            captured = tuple((n, self.value(v)) for n, v in atom.captured)
            return Value.of(Closure(atom.key, captured, atom.no_capture), trace)
        if isinstance(atom, (Dev, Ten)):
            return Value.of(self.resite(atom), trace)
        if isinstance(atom, Inst) and atom.site is not None and atom.site.owner == self.made_by:
            site = self.program.bounded(atom.site.called_from(id(self.node), self.run.site_owner))
            sites = self.program.instance_sites.setdefault(atom.cls, set())
            if site in sites or len(sites) < MAX_INSTANCE_SITES:
                sites.add(site)
                return Value.of(Inst(atom.cls, site), trace)
            return Value.of(Inst(atom.cls), trace)
        if isinstance(atom, Box) and atom in self.per_call_boxes:
            # a container the callee made and filled with its parameters: one per call
            site = self.program.bounded(atom.site.called_from(id(self.node), self.run.site_owner))
            return Value.of(Box(atom.kind, site), trace)
        return Value.of(atom, trace)

    def resite(self, atom: object) -> object:
        """Capture devices made inside the callee are new at every call."""
        if isinstance(atom, Ten):
            return Ten(self.resite(atom.dev))  # type: ignore[arg-type]
        if isinstance(atom, Dev):
            if atom.inner is not None:
                return Dev(atom.kind, self.resite(atom.inner), atom.site)  # type: ignore[arg-type]
            if atom.site is not None and atom.site.owner == self.made_by:
                return Dev(atom.kind, None, self.program.bounded(
                    atom.site.called_from(id(self.node), self.run.site_owner)))
        return atom

    def symbol(self, atom: Sym, trace: Trace | None) -> Value:
        arg = self.bound.get(atom.param, Value.of(UNKNOWN))
        param = self.info.params[atom.param].name if atom.param < len(self.info.params) else "?"
        passed = Step(self.run.file, self.node, "passed to `{code}` as `" + param + "`",
                      self.run.anchor)
        value = Value({
            a: (t.then(passed) if t is not None else None) for a, t in arg.items()
        })
        run = self.run
        for proj in atom.proj:
            if isinstance(proj, tuple) and proj[0] == "with":
                partner = self.symbol(proj[1], None)
                value = join_all(
                    run.combine(a, a_trace, b, b_trace)
                    for a, a_trace in value.items() for b, b_trace in partner.items()
                ) if value and partner else value.join(partner)
                continue
            value = project(run, value, proj, self.node)
        if atom.real:
            from dispatch_lint.analyzer.dataflow import narrow_not_capture

            value = narrow_not_capture(value)
        out: dict[object, Trace | None] = {}
        for new_atom, new_trace in value.items():
            if new_trace is not None and trace is not None:
                new_trace = new_trace.extend(trace)
            out[new_atom] = new_trace
            self.fresh.add(new_atom)
        return Value(out)


def project(run: FunctionRun, value: Value, proj: object, node: cst.CSTNode) -> Value:
    """Apply one symbolic projection (see :class:`Sym`) to a concrete value."""
    if isinstance(proj, tuple) and proj[0] == "item":
        return run.item(value, proj[1], node)
    if isinstance(proj, tuple):  # ("mix", device): an operation with a tensor on that device
        partner = Value.of(Ten(proj[1]))
        out = EMPTY
        for atom, trace in value.items():
            for p_atom, p_trace in partner.items():
                out = out.join(run.combine(atom, trace, p_atom, p_trace) if isinstance(
                    atom, (Ten, Sym)) else Value.of(p_atom, trace))
        return out or Value.of(UNKNOWN)
    if proj == "device":
        return run.attribute(value, "device", node)
    if proj == "elem":
        return run.elements(value)
    if isinstance(proj, str) and proj.startswith("attr:"):
        return run.attribute(value, proj[5:], node)
    out = EMPTY
    for atom, trace in value.items():
        if isinstance(atom, Sym):
            out = out.join(run.project_sym(atom, trace, proj))
        elif proj == "asdev":
            out = out.join(run.as_device(Value.of(atom, trace), node))
        elif proj == "tensor":
            for dev, dev_trace in run.as_device(Value.of(atom, trace), node).items():
                if isinstance(dev, Dev):
                    out = out.join(Value.of(Ten(dev), dev_trace))
        elif proj == "inner" and isinstance(atom, Ten):
            out = out.join(Value.of(Ten(atom.dev.inner or atom.dev), trace))
        elif proj == "autodiff" and isinstance(atom, (Dev, Str)):
            for dev, dev_trace in run.as_device(Value.of(atom, trace), node).items():
                if isinstance(dev, Dev):
                    out = out.join(Value.of(Dev("autodiff", inner=dev), dev_trace))
    return out or Value.of(UNKNOWN)
