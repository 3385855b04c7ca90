"""What the analysis knows about the checked program: its files, functions and classes, the
units it analyses and the findings they make.

Plain records, shared by the interpreter (:mod:`dispatch_lint.analyzer.dataflow`), the summaries
and the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from dispatch_lint.analyzer.events import Event, Hit
from dispatch_lint.analyzer.values import Value


@dataclass
class FileInfo:
    """One module of the checked tree.

    ``imported_as`` (the module names the project's imports reach it by) and ``relative``
    (the absolute module of each of its relative imports, by (level, module as written))
    come from the import resolver (:mod:`..project`); None: both follow from ``module``.
    ``tree`` is None until :meth:`parsed` parses it with ``load``: a module that only
    helps the analysis (one a checked module imports) is parsed when the analysis first
    needs it, most of a large library never.
    """

    index: int
    path: str
    module: str
    is_package: bool
    tree: cst.Module | None
    imported_as: tuple[str, ...] | None = None
    relative: dict[tuple[int, str], str] | None = None
    load: Callable[[], cst.Module | None] | None = field(default=None, repr=False)

    def parsed(self) -> cst.Module | None:
        """The module's tree, parsed now if it was not yet; None if it cannot be parsed
        (``load`` said why where it reports)."""
        if self.tree is None and self.load is not None:
            load, self.load = self.load, None
            self.tree = load()
        return self.tree


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
    #: the function it is nested in (for closures' ``nonlocal`` variables)
    parent: FuncInfo | None = None
    #: the transforms its decorators apply (``@jax.jit``), innermost first: every call of
    #: the function traces it
    transforms: tuple[object, ...] = ()
    #: the statement holding a lambda: the steps of its analysis are positioned through it
    #: (a def is a statement itself)
    anchor: cst.CSTNode | None = None


@dataclass
class FieldInfo:
    """A field declared in a class body (``name: type`` or ``name: type = default``), as the
    ``__init__`` that ``@dataclass`` generates sees it."""

    name: str
    #: the declaration (a trace step for its default points here), its own anchor
    node: cst.CSTNode
    anchor: cst.CSTNode
    #: the plain default (``= value``, ``field(default=value)``), evaluated in the class body
    default: Value | None = None
    #: ``field(default_factory=f)``: ``f`` is called for every instance
    factory: Value | None = None
    #: False for ``field(init=False)``: not a parameter of the generated ``__init__``
    init: bool = True


@dataclass
class ClassInfo:
    """A class of the checked tree: its methods, its bases, its dataclass-style fields."""

    key: int
    node: cst.ClassDef
    file: int
    qualname: str
    bases: list[int] = field(default_factory=list)
    methods: dict[str, FuncInfo] = field(default_factory=dict)
    #: the setters of its properties (``@value.setter``), by the property's name
    setters: dict[str, FuncInfo] = field(default_factory=dict)
    #: annotated fields of the class body, in order
    fields: dict[str, FieldInfo] = field(default_factory=dict)
    #: decorated with ``@dataclass``: instances get every field from the generated __init__
    dataclass: bool = False
    #: derives from ``enum.Enum`` (or another class of the ``enum`` module): its class
    #: attributes are its members
    enum: bool = False
    #: for a class defined inside a function: that function's names, which its methods
    #: read as free names
    captured: dict[str, Value] = field(default_factory=dict)


@dataclass
class Unit:
    """One analysed unit (a module's top level or a summary): when it was analysed, what it
    read (heap slots, callee summaries) and what it found."""

    stamp: int
    #: each heap slot or summary it read, with the clock when it first read it
    reads: dict[object, int] = field(default_factory=dict)
    findings: dict[tuple[str, int, int], Finding] = field(default_factory=dict)
    #: the summaries its calls used
    calls: set[object] = field(default_factory=set)


@dataclass(frozen=True)
class Finding:
    """A rule hit at a place: the event it judged and what it found."""

    hit: Hit
    event: Event


def all_params(params: cst.Parameters) -> list[cst.Param]:
    out = [*params.posonly_params, *params.params]
    if type(params.star_arg) is cst.Param:  # else a MaybeSentinel or a ParamStar
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
