"""Capture: the recording graph of a capture device, exported programs, their JSON form.

Operations on capture tensors append ``Node``s to their device's ``Graph``. ``export`` cuts
the part of the graph the outputs depend on into a ``Program`` whose placeholders are named
inputs; ``Program.run`` executes it on a real device (the Numba backend fuses element-wise
chains; everything else runs through ``interpret``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from dispatch_lint.runtime import ops
from dispatch_lint.runtime.errors import CaptureDataError, Origin

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.runtime.devices import Device
    from dispatch_lint.runtime.tensor import Tensor

__all__ = [
    "FORMAT_VERSION",
    "Graph",
    "Node",
    "Program",
    "export",
    "interpret",
    "replay",
]

#: Version of the JSON form of a Program; ``from_json`` refuses any other.
FORMAT_VERSION = 1


@dataclass(frozen=True, eq=False)
class Node:
    """One recorded operation.

    ``op`` is ``"input"`` (attrs ``{"name": str}``), ``"const"`` (attrs ``{"value": ndarray}``)
    or a kernel name (``add``, ``sum``, ``reshape``...) with its non-array arguments in
    ``attrs`` (``axis``, ``keepdims``, ``shape``, ``axes``, ``dtype``). ``inputs`` are indices
    of earlier nodes.
    """

    op: str
    inputs: tuple[int, ...]
    attrs: Mapping[str, Any]
    shape: tuple[int, ...]
    dtype: np.dtype

    # Written by hand: ``attrs`` may hold a constant's array, which ``==`` would broadcast.
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Node):
            return NotImplemented
        return (
            (self.op, self.inputs, self.shape, self.dtype)
            == (other.op, other.inputs, other.shape, other.dtype)
            and self.attrs.keys() == other.attrs.keys()
            and all(_same_attr(self.attrs[k], other.attrs[k]) for k in self.attrs)
        )

    def __hash__(self) -> int:
        return hash((self.op, self.inputs, self.shape, self.dtype))


def _same_attr(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype == b.dtype and np.array_equal(
            a, b, equal_nan=a.dtype.kind == "f"
        )
    return bool(a == b)


class Graph:
    """The growing recording of one capture device: nodes in the order they were made."""

    __slots__ = ("exported", "names", "nodes", "origins")

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        #: Where each node's capture tensor was born (None in guard mode off).
        self.origins: list[Origin | None] = []
        #: Placeholder name -> node index.
        self.names: dict[str, int] = {}
        #: Programs already exported, by output node indices. The graph only grows, so the
        #: cut for given outputs never changes; reusing it keeps backend caches (the fused
        #: Numba kernels) across ``replay`` calls.
        self.exported: dict[tuple[int, ...], Program] = {}

    def add(self, node: Node, origin: Origin | None) -> int:
        """Append a node (already validated) and return its index."""
        if node.op == "input":
            name = node.attrs["name"]
            if name in self.names:
                raise ValueError(
                    f"this capture device already has a placeholder named {name!r}; "
                    "placeholder names must be unique"
                )
            self.names[name] = len(self.nodes)
        self.nodes.append(node)
        self.origins.append(origin)
        return len(self.nodes) - 1

    def fresh_name(self) -> str:
        """An unused placeholder name: ``input0``, ``input1``..."""
        n = len(self.names)
        while f"input{n}" in self.names:
            n += 1
        return f"input{n}"


@dataclass(frozen=True)
class InputSpec:
    """A named program input: the shape and dtype its placeholder declared."""

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype


@dataclass(frozen=True)
class Program:
    """An exported capture graph: named inputs, nodes in topological order, outputs in order."""

    nodes: tuple[Node, ...]
    outputs: tuple[int, ...]
    #: Per-program state of backends (the Numba backend caches its fused kernels here).
    cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def inputs(self) -> dict[str, InputSpec]:
        """The program's inputs by name, in the order they were declared."""
        return dict(self._specs())

    def _specs(self) -> dict[str, InputSpec]:
        # Computed once: ``run`` checks every call's inputs against them.
        specs = self.cache.get("inputs")
        if specs is None:
            specs = self.cache["inputs"] = {
                node.attrs["name"]: InputSpec(
                    node.attrs["name"], node.shape, node.dtype
                )
                for node in self.nodes
                if node.op == "input"
            }
        return specs  # type: ignore[no-any-return]

    def run(
        self,
        inputs: Mapping[str, Any] | None = None,
        device: Device | str | None = None,
    ) -> Tensor | tuple[Tensor, ...]:
        """Execute the program on a real device (default ``NumPy()``).

        ``inputs`` maps each input name to an array, a list or a real tensor. Returns one
        tensor for a one-output program, else a tuple; results are never capture tensors.
        """
        NumPy, to_device, from_array, kernels_for, numba_backend = _run_helpers()
        target = NumPy() if device is None else to_device(device)
        if target.is_capture:
            raise ValueError(
                f"Program.run needs a real device (NumPy(), Numba(), Autodiff(...)), "
                f"got {target!r}: running a program never makes capture tensors"
            )
        arrays = self._check_inputs({} if inputs is None else inputs)
        base = target._base
        results = None
        if base.kind == "numba":
            run_program = getattr(numba_backend(), "run_program", None)
            if run_program is not None:
                results = run_program(self, arrays)
        if results is None:
            results = interpret(self, arrays, kernels_for(base))
        if len(results) == 1:
            return from_array(np.asarray(results[0]), target)
        return tuple(from_array(np.asarray(r), target) for r in results)

    def _check_inputs(self, inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
        if not isinstance(inputs, Mapping):
            raise TypeError(
                f"Program.run takes inputs as a dict of name -> array, got "
                f"{type(inputs).__name__}"
            )
        specs = self._specs()
        if inputs.keys() != specs.keys():
            unknown = [name for name in inputs if name not in specs]
            if unknown:
                raise ValueError(
                    f"unknown program input(s) "
                    f"{', '.join(map(repr, sorted(unknown, key=str)))}; "
                    f"the program takes {_names(specs)}"
                )
            missing = [name for name in specs if name not in inputs]
            raise ValueError(
                f"missing program input(s) {', '.join(map(repr, missing))}; "
                f"the program takes {_names(specs)}"
            )
        arrays = {}
        for name, spec in specs.items():
            value = inputs[name]
            # The common case, an array of the placeholder's dtype and shape, costs three
            # checks (a replay of a small program is mostly this kind of overhead).
            if (
                type(value) is np.ndarray
                and value.dtype is spec.dtype
                and value.shape == spec.shape
            ):
                arrays[name] = value
                continue
            if isinstance(value, _tensor_class()):
                if value.is_capture:
                    raise CaptureDataError(
                        f"program input {name!r} is a capture tensor; pass real data",
                        value._origin,
                    )
                value = value._data
            arrays[name] = _conform(name, value, spec)
        return arrays

    def to_json(self) -> str:
        """The program as JSON text (with ``"format_version"``); ``from_json`` reads it back."""
        return json.dumps(
            {
                "format_version": FORMAT_VERSION,
                "nodes": [_node_to_json(node) for node in self.nodes],
                "outputs": list(self.outputs),
            }
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> Program:
        """Read a program written by ``to_json``; ValueError for another format version."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"not a dispatch-lint program: invalid JSON ({exc})"
            ) from None
        if not isinstance(data, dict) or "format_version" not in data:
            raise ValueError('not a dispatch-lint program: no "format_version" field')
        version = data["format_version"]
        if version != FORMAT_VERSION:
            raise ValueError(
                f"program JSON has format_version {version!r}; this runtime reads version "
                f"{FORMAT_VERSION} only (export it again with this version)"
            )
        try:
            nodes = tuple(_node_from_json(raw) for raw in data["nodes"])
            outputs = tuple(int(i) for i in data["outputs"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed program JSON: {exc}") from None
        _check_topology(nodes, outputs)
        return cls(nodes, outputs)

    def __repr__(self) -> str:
        return (
            f"Program(inputs={list(self.inputs)}, nodes={len(self.nodes)}, "
            f"outputs={len(self.outputs)})"
        )


def _names(specs: Mapping[str, InputSpec]) -> str:
    if not specs:
        return "no inputs"
    return ", ".join(f"{s.name!r} {s.shape} {s.dtype}" for s in specs.values())


@functools.cache
def _tensor_class() -> type:
    from dispatch_lint.runtime.tensor import Tensor

    return Tensor


@functools.cache
def _run_helpers() -> tuple[Any, ...]:
    """What ``Program.run`` needs from modules that import this one, imported on first use
    (once: an import statement in ``run`` itself costs microseconds on every call)."""
    from dispatch_lint.runtime.backends import kernels_for, numba_backend
    from dispatch_lint.runtime.devices import NumPy
    from dispatch_lint.runtime.devices import device as to_device
    from dispatch_lint.runtime.tensor import from_array

    return NumPy, to_device, from_array, kernels_for, numba_backend


def _conform(name: str, value: Any, spec: InputSpec) -> np.ndarray:
    try:
        array = np.asarray(value)
    except ValueError as exc:
        raise ValueError(
            f"program input {name!r} is not a rectangular array: {exc}"
        ) from None
    except TypeError as exc:
        raise TypeError(f"program input {name!r} is not array-like: {exc}") from None
    if array.dtype != spec.dtype:
        # Same-kind casts are what users mean (np.ones() float64 data for a float32
        # placeholder, ints for floats); floats for an int placeholder, or text, are mistakes.
        if array.dtype.kind not in "biuf" or not np.can_cast(
            array.dtype, spec.dtype, casting="same_kind"
        ):
            raise TypeError(
                f"program input {name!r} has dtype {array.dtype}; the placeholder is "
                f"{spec.dtype}"
            )
        array = array.astype(spec.dtype)
    if array.shape != spec.shape:
        raise ValueError(
            f"program input {name!r} has shape {array.shape}; the placeholder is {spec.shape}"
        )
    return array


def interpret(
    program: Program, arrays: Mapping[str, np.ndarray], kernels: Any
) -> list[np.ndarray]:
    """Execute ``program`` node by node with a kernel table; the outputs in order."""
    values: list[Any] = []
    with np.errstate(all="ignore"):
        for node in program.nodes:
            values.append(_execute(node, values, arrays, kernels))
    return [np.asarray(values[i]) for i in program.outputs]


def _execute(
    node: Node, values: list[Any], arrays: Mapping[str, np.ndarray], kernels: Any
) -> Any:
    op = node.op
    args = [values[i] for i in node.inputs]
    if op == "input":
        return arrays[node.attrs["name"]]
    if op == "const":
        return node.attrs["value"]
    kernel = getattr(kernels, op)
    if op in ops.REDUCTIONS:
        return kernel(args[0], node.attrs.get("axis"), bool(node.attrs.get("keepdims")))
    if op == "reshape":
        return kernel(args[0], tuple(node.attrs["shape"]))
    if op == "transpose":
        return kernel(args[0], node.attrs.get("axes"))
    if op == "astype":
        return kernel(args[0], node.attrs["dtype"])
    return kernel(*args)


def export(*outputs: Tensor) -> Program:
    """A ``Program`` computing ``outputs`` (capture tensors of ONE capture device).

    The placeholders the outputs depend on become the program's named inputs.
    """
    from dispatch_lint.runtime.tensor import Tensor

    if len(outputs) == 1 and isinstance(outputs[0], (list, tuple)):
        outputs = tuple(outputs[0])
    if not outputs:
        raise ValueError("export() needs at least one capture tensor")
    for t in outputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"export() takes capture tensors, got {type(t).__name__}")
        if not t.is_capture:
            raise ValueError(
                f"export() takes capture tensors; got a real tensor on {t.device!r} "
                "(move it onto the capture device first, where it becomes a constant)"
            )
    captures = {t._device._capture for t in outputs}
    if len(captures) != 1:
        raise ValueError(
            "export() outputs must all come from one capture device, got "
            + ", ".join(repr(c) for c in captures)
        )
    graph = next(iter(captures)).graph
    key = tuple(t._node for t in outputs)
    program = graph.exported.get(key)
    if program is None:
        program = graph.exported[key] = _cut(graph.nodes, key)
    return program


def _cut(nodes: Sequence[Node], outputs: Sequence[int]) -> Program:
    needed: set[int] = set()
    stack = list(outputs)
    while stack:
        index = stack.pop()
        if index not in needed:
            needed.add(index)
            stack.extend(nodes[index].inputs)
    # Graph order is already topological (a node only refers to earlier ones).
    order = sorted(needed)
    renumber = {old: new for new, old in enumerate(order)}
    kept = tuple(
        Node(
            nodes[i].op,
            tuple(renumber[j] for j in nodes[i].inputs),
            nodes[i].attrs,
            nodes[i].shape,
            nodes[i].dtype,
        )
        for i in order
    )
    return Program(kept, tuple(renumber[i] for i in outputs))


def replay(
    outputs: Tensor | Iterable[Tensor],
    inputs: Mapping[str, Any] | None = None,
    device: Device | str | None = None,
) -> Tensor | tuple[Tensor, ...]:
    """Export ``outputs`` and run the program at once: real tensors on ``device``."""
    from dispatch_lint.runtime.tensor import Tensor

    outs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
    return export(*outs).run(inputs, device=device)


def _node_to_json(node: Node) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    for key, value in node.attrs.items():
        if key == "value":
            array = np.asarray(value)
            attrs[key] = {
                "dtype": str(array.dtype),
                "shape": list(array.shape),
                "data": array.ravel().tolist(),
            }
        elif key == "dtype":
            attrs[key] = str(np.dtype(value))
        elif isinstance(value, tuple):
            attrs[key] = list(value)
        else:
            attrs[key] = value
    return {
        "op": node.op,
        "inputs": list(node.inputs),
        "attrs": attrs,
        "shape": list(node.shape),
        "dtype": str(node.dtype),
    }


_KNOWN_OPS = (
    ops.UNARY
    | ops.BINARY
    | ops.REDUCTIONS
    | {"input", "const", "matmul", "reshape", "transpose", "astype"}
)


def _node_from_json(raw: Mapping[str, Any]) -> Node:
    op = raw["op"]
    if op not in _KNOWN_OPS:
        raise ValueError(f"unknown op {op!r}")
    attrs: dict[str, Any] = {}
    for key, value in raw.get("attrs", {}).items():
        if key == "value":
            dtype = ops.as_dtype(value["dtype"])
            attrs[key] = np.asarray(value["data"], dtype=dtype).reshape(value["shape"])
        elif key == "dtype":
            attrs[key] = ops.as_dtype(value)
        elif isinstance(value, list):
            attrs[key] = tuple(value)
        else:
            attrs[key] = value
    return Node(
        op,
        tuple(int(i) for i in raw["inputs"]),
        MappingProxyType(attrs),
        tuple(int(d) for d in raw["shape"]),
        ops.as_dtype(raw["dtype"]),
    )


def _arity(op: str) -> int:
    if op in ("input", "const"):
        return 0
    if op in ops.BINARY or op == "matmul":
        return 2
    return 1


#: Attributes each op needs to run.
_REQUIRED_ATTRS = {
    "input": ("name",),
    "const": ("value",),
    "reshape": ("shape",),
    "astype": ("dtype",),
} | {op: ("axis", "keepdims") for op in ops.REDUCTIONS}


def _check_topology(nodes: Sequence[Node], outputs: Sequence[int]) -> None:
    for index, node in enumerate(nodes):
        if len(node.inputs) != _arity(node.op):
            raise ValueError(
                f"malformed program JSON: node {index} ({node.op}) has "
                f"{len(node.inputs)} inputs, expected {_arity(node.op)}"
            )
        missing = [k for k in _REQUIRED_ATTRS.get(node.op, ()) if k not in node.attrs]
        if missing:
            raise ValueError(
                f"malformed program JSON: node {index} ({node.op}) lacks "
                f"{', '.join(missing)}"
            )
        if any(not 0 <= i < index for i in node.inputs):
            raise ValueError(
                f"malformed program JSON: node {index} refers to a later node"
            )
    if any(not 0 <= i < len(nodes) for i in outputs):
        raise ValueError("malformed program JSON: an output refers to no node")
