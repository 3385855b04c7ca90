"""Functions and closures: definitions, their decorators and defaults, and free variables.

The program records each ``def`` and ``lambda`` once (:class:`FunctionDefinitions`); a nested
function read by name becomes a :class:`~dispatch_lint.analyzer.values.Closure` holding the
current values of its free variables (:class:`Closures`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dispatch_lint.frameworks import dispatch
from dispatch_lint.analyzer.dataflow.state import State
from dispatch_lint.analyzer.facts import (
    ClassInfo,
    FuncInfo,
    ParamInfo,
    all_params,
    kind_of,
)
from dispatch_lint.analyzer.dataflow.calls import is_callable_object
from dispatch_lint.analyzer.dataflow.externals import DISPATCHERS
from dispatch_lint.analyzer.dataflow.syntax import names_within
from dispatch_lint.analyzer.values import EMPTY, Closure, Cls, Ref, Trace, Value

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.analyzer.dataflow.run import FunctionRun


class FunctionDefinitions:
    """The program's half: the functions of the checked tree."""

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
                    if dispatch.runtime_name(atom.qualname) == "no_capture" and \
                            self.dispatch_runtime:
                        no_capture = True
                    short = atom.qualname.rsplit(".", 1)[-1]
                    if cls is not None and short in ("staticmethod", "classmethod", "property",
                                                     "cached_property"):
                        kind = "property" if short == "cached_property" else short
        params = [
            ParamInfo(p.name.value, p.name, kind_of(p, node.params))
            for p in all_params(node.params)
        ]
        transforms = run.decorator_transforms(node, state) if (
            self.traced and isinstance(node, cst.FunctionDef) and node.decorators) else ()
        return FuncInfo(
            key=id(node), node=node, file=run.file, name=name, qualname=qualname,
            params=params, cls=cls, kind=kind,
            nested=run.func is not None and cls is None or isinstance(node, cst.Lambda),
            no_capture=no_capture, parent=run.func, transforms=transforms,
            anchor=node if isinstance(node, cst.FunctionDef) else run.anchor,
        )

    def name_of(self, atom: object) -> str | None:
        """``__name__`` of a function or class of the checked tree."""
        if isinstance(atom, (Ref, Closure)) and atom.key in self.funcs:
            return self.funcs[atom.key].name
        if isinstance(atom, Cls) and atom.cls in self.classes:
            return self.classes[atom.cls].node.name.value
        return None

    def function_value(self, info: FuncInfo) -> Value:
        if info.nested:
            return Value.of(Closure(info.key, (), info.no_capture))
        return Value.of(Ref(info.qualname, key=info.key, no_capture=info.no_capture))

    def declare_cell(self, owner: int, name: str) -> None:
        """A function nested in ``owner`` declares ``nonlocal name``: the variable is a heap
        slot that closures read and write (see :mod:`.views`), not what they captured."""
        if (owner, name) not in self.cells:
            self.cells.add((owner, name))
            self.note_change(("cell", owner, name))

    def is_cell(self, owner: int, name: str) -> bool:
        self.note_read(("cell", owner, name))
        return (owner, name) in self.cells

    def free_names(self, key: int) -> frozenset[str]:
        names = self._free_names.get(key)
        if names is None:
            names = self._free_names[key] = frozenset(names_within(self.funcs[key].node))
        return names


class Closures:
    """The interpreter's half: closures and lambdas as values."""

    def fresh_closures(self, value: Value, state: State) -> Value:
        """Closures read by name capture the current values of their free variables."""
        for atom in value:  # a loop, not any(): this runs for every name read
            if isinstance(atom, Closure) and not atom.captured:
                break
        else:
            return value
        out: dict[object, Trace | None] = {}
        for atom, trace in value.items():
            if isinstance(atom, Closure) and not atom.captured:
                free = self.program.free_names(atom.key)
                captured = tuple(
                    (n, _flat(state.env[n])) for n in sorted(free) if n in state.env
                ) + tuple((n, _flat(self.captured[n])) for n in sorted(free)
                          if n not in state.env and n in self.captured)
                # a default over this function's parameters (`lambda t=t: ...`) is what the
                # caller passed: kept with the closure, so that a caller's call of it sees it
                defaults = self.program.funcs[atom.key].defaults
                captured += tuple(
                    (default_name(index), _flat(value))
                    for index, value in sorted(defaults.items())
                    if any(self.is_symbolic(a) for a in value))
                atom = self.limited(Closure(atom.key, captured or (("", EMPTY),),
                                            atom.no_capture))
            out[atom] = trace
        return Value(out)

    def decorate(self, node: cst.FunctionDef | cst.ClassDef, value: Value, state: State
                 ) -> Value:
        """What the name of a decorated definition is bound to: each decorator, nearest
        first, is called with what the definition is so far and its result replaces it (a
        registering decorator runs here). A result the analysis cannot follow (a decorator
        from another library) keeps the definition: such decorators wrap and call it."""
        for decorator in reversed(node.decorators):
            decorate = self.eval(decorator.decorator, state)
            if not any(is_callable_object(a) or isinstance(a, Ref)
                       and a.qualname in DISPATCHERS for a in decorate):
                continue
            result = self.call_value(decorate, (value,), {}, decorator.decorator)
            if any(is_callable_object(a) for a in result):
                value = result
        return value

    def expr_Lambda(self, node: cst.Lambda, state: State) -> Value:
        info = self.program.define_function(node, self, state)
        return self.fresh_closures(self.program.function_value(info), state)


def _flat(value: Value) -> Value:
    """A captured value without the captures of closures inside it: closures capturing
    closures would otherwise nest deeper at every round."""
    if not any(isinstance(a, Closure) and a.captured for a in value):
        return value
    return Value({
        (Closure(a.key, (), a.no_capture) if isinstance(a, Closure) else a): t
        for a, t in value.items()
    })


def default_name(index: int) -> str:
    """The name under which a closure keeps the default of its parameter ``index`` (no name
    a program can spell)."""
    return f"<default {index}>"
