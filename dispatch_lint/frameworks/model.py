"""The one shape of a framework model: where data-less values are born, how they propagate,
where they break, and what makes them concrete again.

A *data-less value* stands for values that do not exist yet: a capture tensor of the dispatch
runtime, a JAX tracer while a function is traced. Each framework module of this package
(:mod:`.dispatch`, :mod:`.jax`) describes its values with one :class:`FrameworkModel`, by
qualified name (TorchFix-style: data, not visitors). The interpreter reads these tables; the
rules judge the events it records against the :class:`Sink` entries; the user's
``[tool.dispatch-lint]`` ``sources``, ``sinks`` and ``sanitizers`` extend them.

This module is pure data and imports nothing heavy.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

__all__ = [
    "ABSTRACT",
    "CONCRETE",
    "Body",
    "EVERY_KIND",
    "FrameworkModel",
    "Shape",
    "Sink",
    "Transform",
]

#: The kinds of data-less value a trace makes. An *abstract* value has no data at all (JAX
#: under ``jit``/``vmap``; a capture tensor); a *concrete* one carries its data while it is
#: traced (JAX under ``grad`` alone), so only some operations break on it.
ABSTRACT = "abstract"
CONCRETE = "concrete"
EVERY_KIND = frozenset({ABSTRACT, CONCRETE})


class Imported(Protocol):
    """One import statement as the project's scanner reads it (see
    ``dispatch_lint.analyzer.project.Import``)."""

    level: int
    module: str
    names: tuple[str, ...]
    bound: tuple[str, ...]


@dataclass(frozen=True)
class Sink:
    """An operation that breaks on a data-less value.

    ``operation`` is the key the interpreter names the operation by in the events it records
    (``float()``, ``.item()``, ``condition``, ``index``, ``shape``, ``escape``, ...);
    ``error`` is the error the framework raises, as its users know it; ``breaks`` the kinds
    of value it breaks on."""

    operation: str
    rule: str
    error: str
    fix: str
    breaks: frozenset[str] = EVERY_KIND


@dataclass(frozen=True)
class Transform:
    """A function transform (``jax.jit``): the function it is given is traced when the
    result is called; its parameters are data-less values of ``kind``, except those its
    options leave untraced.

    Options are read from the call (or from ``functools.partial(transform, ...)``):
    ``positional`` names the options that may come positionally after the function;
    ``static`` the options that list untraced parameters by position (ints) or by name
    (strings); ``traced_only`` the option that lists the only traced positions, with
    ``traced_default`` when it is not given (``grad``'s ``argnums=0``); ``unmapped`` the option
    whose ``None`` entries leave a parameter untraced (``vmap``'s ``in_axes``).
    ``concrete_inputs``: the function runs on concrete values unless its caller is traced
    abstractly (``custom_jvp``). ``stages``: an abstract trace that records everything
    computed inside it, so that results made from constants are data-less too (``jit``);
    ``vmap`` does not: ``jnp.ones(3)`` inside it is a concrete array. ``concrete_result``:
    calling the transformed function gives a description of the trace, never a traced
    value, even inside a trace (``jax.make_jaxpr(f)(x)`` is a jaxpr)."""

    kind: str
    positional: tuple[str, ...] = ()
    static: tuple[str, ...] = ()
    traced_only: str = ""
    traced_default: tuple[int, ...] = (0,)
    unmapped: str = ""
    concrete_inputs: bool = False
    stages: bool = True
    concrete_result: bool = False


@dataclass(frozen=True)
class Body:
    """A call that traces the functions it is given at once, every parameter a data-less
    value of ``kind`` (``jax.lax.scan``'s body, both branches of ``jax.lax.cond``).

    ``functions`` are the positions (or keywords) of the traced functions; ``sequences`` the
    positions of lists or tuples of them (``jax.lax.switch``'s branches). ``arguments``: the
    call's arguments from this position on, and its keywords but the functions', are the
    function's own (``jax.eval_shape(f, *args, **kwargs)``): a parameter given no array
    leaves (``()``, ``None``), or not given at all, is not traced. Otherwise the functions are
    called positionally with ``passes`` arguments (``scan``'s body: carry and x), or with the
    call's positional arguments from ``operands`` on (``cond``'s operands); a parameter with a
    default that is not given keeps it, untraced."""

    functions: tuple[int | str, ...]
    kind: str = ABSTRACT
    sequences: tuple[int | str, ...] = ()
    arguments: int | None = None
    passes: int | None = None
    operands: int | None = None


@dataclass(frozen=True)
class Shape:
    """Arguments of a call that must be concrete integers: a shape, a size, a count.
    ``positions`` and ``keywords`` name them; the sink is ``operation``."""

    positions: tuple[int, ...]
    keywords: tuple[str, ...] = ()
    operation: str = "shape"


@dataclass(frozen=True)
class FrameworkModel:
    """What the analysis knows about one framework, in four parts.

    *Contexts and sources* (where data-less values are born): ``transforms`` and ``bodies``
    trace functions; ``sources`` are calls whose result is data-less (by qualified name or,
    for the dispatch runtime, by the API name under its module).
    *Propagation*: inside a trace, the results of calls under ``traced_namespaces`` are
    data-less too, except ``concrete_functions`` and the ``structural_namespaces`` (which
    only move their arguments around: pytree utilities; ``leaf_lists`` of them give lists of
    them); ``concrete_attributes`` of a
    data-less value are concrete, ``same_kind_attributes`` and ``same_kind_methods`` give a
    value of the same kind (an empty set of methods: every method but the sinks does);
    ``calls_through`` call their function argument with
    the other arguments (``jax.lax.associative_scan``); ``callbacks`` call theirs later with
    concrete values (``jax.debug.callback``).
    *Sinks*: ``sinks`` by operation, with the call tables that lead to them
    (``method_sinks``, ``function_sinks``, ``shapes``, ...).
    *Sanitizers*: calls whose result is concrete again (``kind_sanitizers``: only on values
    of that kind, as ``jax.lax.stop_gradient`` under ``grad`` alone); ``kind_comparisons``: a
    comparison of values of that kind is concrete (under ``grad`` alone: not differentiable);
    ``kind_casts``: so is a cast (``x.astype(...)``) to one of ``integer_dtypes``; a type
    test against one of ``dataless_types`` that fails proves a value concrete.

    ``modules`` are the import prefixes that make a file use the framework; ``mentions``
    what a file's bytes must hold to use it (default: the modules' top names), and
    ``mention_pattern`` what they must then match (``b"jax"`` alone would also find "ajax"
    and "tex2jax" in HTML strings); ``message`` is the sentence
    a finding on its values starts with when its rule's catalog sentence names another
    framework's values.
    """

    name: str
    modules: tuple[str, ...]
    message: str = ""
    mentions: tuple[bytes, ...] = ()
    mention_pattern: bytes = b""
    # contexts and sources
    transforms: Mapping[str, Transform] = field(default_factory=dict)
    bodies: Mapping[str, Body] = field(default_factory=dict)
    sources: Mapping[str, object] = field(default_factory=dict)
    # propagation
    traced_namespaces: tuple[str, ...] = ()
    #: the framework's own machinery: what its calls give is not an array, never data-less
    #: (JAX's ``jax.core.find_top_trace(())`` is a trace object)
    internal_namespaces: tuple[str, ...] = ()
    concrete_functions: frozenset[str] = frozenset()
    concrete_attributes: frozenset[str] = frozenset()
    same_kind_attributes: frozenset[str] = frozenset()
    same_kind_methods: frozenset[str] = frozenset()
    structural_namespaces: tuple[str, ...] = ()
    #: single functions that, like those, give their arguments' data-less values and make
    #: none (JAX's ``jax.device_get``: a tracer stays one, a constant stays concrete)
    structural_functions: frozenset[str] = frozenset()
    #: structural utilities whose result is a Python list of their argument's leaves, not a
    #: data-less value (its truth and length are concrete): qualname -> (each item a
    #: ``(path, leaf)`` pair, the list paired with the structure as ``(leaves, treedef)``)
    leaf_lists: Mapping[str, tuple[bool, bool]] = field(default_factory=dict)
    calls_through: Mapping[str, tuple[int, tuple[int, ...] | None]] = field(
        default_factory=dict)
    #: of ``calls_through``, those whose result has the structure of their tree argument
    #: (``jax.tree.map``): over a tuple, each item is mapped on its own
    same_structure: frozenset[str] = frozenset()
    callbacks: Mapping[str, int] = field(default_factory=dict)
    # sinks
    sinks: Mapping[str, Sink] = field(default_factory=dict)
    builtin_sinks: Mapping[str, str] = field(default_factory=dict)
    method_sinks: Mapping[str, str] = field(default_factory=dict)
    function_sinks: Mapping[str, str] = field(default_factory=dict)
    shapes: Mapping[str, Shape] = field(default_factory=dict)
    method_shapes: Mapping[str, Shape] = field(default_factory=dict)
    #: foreign array libraries: calls under these prefixes convert a data-less argument
    #: (a sink) unless listed in ``foreign_passthrough`` (they call the value's own method)
    foreign_conversions: Mapping[str, str] = field(default_factory=dict)
    foreign_passthrough: frozenset[str] = frozenset()
    foreign_concrete: frozenset[str] = frozenset()
    #: foreign namespaces and the framework's own that mirrors each: chosen between by a
    #: type test (``np if isinstance(x, np.ndarray) else jnp``), the framework's own is
    #: the one its values get
    foreign_mirrors: Mapping[str, str] = field(default_factory=dict)
    # sanitizers
    sanitizers: frozenset[str] = frozenset()
    #: types every data-less value of the framework is an instance of: where
    #: ``isinstance(v, T)`` is false, ``v`` is not one (JAX's ``jax.core.Tracer``)
    dataless_types: frozenset[str] = frozenset()
    kind_sanitizers: Mapping[str, str] = field(default_factory=dict)
    kind_comparisons: str = ""
    kind_casts: str = ""
    integer_dtypes: frozenset[str] = frozenset()

    def sink(self, operation: str) -> Sink | None:
        """The sink for ``operation`` (an event's detail), or None."""
        return self.sinks.get(operation)

    def needles(self) -> tuple[bytes, ...]:
        """What a file's bytes must hold to use this framework (the byte prefilter)."""
        if self.mentions:
            return self.mentions
        return tuple(dict.fromkeys(m.split(".", 1)[0].encode() for m in self.modules))

    def mentioned_in(self, source: bytes) -> bool:
        """Whether a file's bytes may use this framework (the byte prefilter: a substring
        test, then the pattern on the few files that pass it)."""
        if not any(needle in source for needle in self.needles()):
            return False
        return self._mention is None or self._mention.search(source) is not None

    @cached_property
    def _mention(self) -> re.Pattern[bytes] | None:
        return re.compile(self.mention_pattern) if self.mention_pattern else None

    def traces(self) -> bool:
        """Whether the framework makes data-less values by tracing functions (JAX): only
        where one of its transforms or bodies is applied."""
        return bool(self.transforms or self.bodies)

    def applied_in(self, code: bytes, imports: Iterable[Imported]) -> bool:
        """Whether ``code`` (a file's source without comments and string literals; its
        ``imports`` as the project's scanner reads them) applies one of the transforms or
        bodies by name: ``jax.jit``, ``lax.scan`` through any name bound to a module of the
        framework, or the transform imported itself (``from jax import jit as compiled``).
        Only a traced function's parameters are tracers, so a file that uses JAX's arrays
        but traces nothing makes none: code that receives one runs under a file that
        traces, which the analysis starts from."""
        applied = self._applied_names
        receivers: set[str] = set()
        for imported in imports:
            if imported.level or not self.owns(imported.module):
                continue
            if not imported.names:  # `import jax.lax as L`
                receivers.update(imported.bound)
                continue
            for name, bound in zip(imported.names, imported.bound):
                if name in applied:
                    return True
                receivers.add(bound)  # `from jax import lax`
        if not receivers:
            return False
        uses = re.compile(rb"\b(?:" + b"|".join(re.escape(r.encode()) for r in sorted(receivers))
                          + rb")(?:\s*\.\s*\w+)*?\s*\.\s*(?:"
                          + b"|".join(n.encode() for n in sorted(applied)) + rb")\b")
        return uses.search(code) is not None

    @cached_property
    def _applied_names(self) -> frozenset[str]:
        """The last names of the transforms and bodies (``jit``, ``scan``)."""
        return frozenset(qualname.rsplit(".", 1)[-1]
                         for qualname in (*self.transforms, *self.bodies))

    def owns(self, qualname: str) -> bool:
        """Whether ``qualname`` names something of this framework."""
        return any(qualname == m or qualname.startswith(m + ".") for m in self.modules)


def sinks_table(*sinks: Sink) -> dict[str, Sink]:
    """Sinks by operation (each operation once)."""
    table: dict[str, Sink] = {}
    for sink in sinks:
        if sink.operation in table:
            raise ValueError(f"sink {sink.operation!r} listed twice")
        table[sink.operation] = sink
    return table
