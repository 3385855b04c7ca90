"""Reverse-mode autodiff: the tape of operations on autodiff tensors, and their gradients.

Each tracked result holds a ``TapeNode``: the op, its parents' nodes, the forward input and
output arrays. ``backward`` walks the tape from the loss in reverse topological order and
applies each op's vector-Jacobian product. Gradients are computed with NumPy whatever the
inner device, and reduced over the axes an input was broadcast along.

Subgradients at kinks are 0: ``relu'(0) = 0`` and ``abs'(0) = 0`` (as PyTorch); the gradient
of ``max`` is split equally among tied maxima; ``d(a ** b)/db`` is taken as 0 where ``a <= 0``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.runtime.tensor import Tensor

__all__ = ["Gradients", "TapeNode", "backward", "unbroadcast"]


_creation_order = itertools.count()


class TapeNode:
    """One recorded operation on autodiff tensors (or a leaf made by ``require_grad``)."""

    __slots__ = ("attrs", "index", "inputs", "op", "output", "parents")

    def __init__(
        self,
        op: str,
        parents: tuple[TapeNode | None, ...],
        inputs: tuple[np.ndarray, ...],
        output: np.ndarray | None,
        attrs: dict[str, Any] | None,
    ) -> None:
        self.op = op
        self.parents = parents
        self.inputs = inputs
        self.output = output
        self.attrs = attrs or {}
        # Creation order: a node is always newer than its parents, so sorting by it newest
        # first is a reverse topological order.
        self.index = next(_creation_order)


def leaf() -> TapeNode:
    """The node of a tensor the user called ``require_grad()`` on."""
    return TapeNode("leaf", (), (), None, None)


class Gradients:
    """The result of ``loss.backward()``: the gradient of every required tensor.

    Read one with ``x.grad(grads)`` (or ``grads.get(x)``): a plain tensor on the inner device,
    or None when ``x`` was not required or the loss does not depend on it.
    """

    __slots__ = ("_arrays",)

    def __init__(self, arrays: dict[TapeNode, np.ndarray]) -> None:
        self._arrays = arrays

    def array_for(self, node: TapeNode | None) -> np.ndarray | None:
        """The gradient array of a tape node, or None."""
        if node is None:
            return None
        return self._arrays.get(node)

    def get(self, tensor: Tensor) -> Tensor | None:
        """The same as ``tensor.grad(self)``."""
        return tensor.grad(self)

    def __len__(self) -> int:
        return len(self._arrays)

    def __contains__(self, tensor: object) -> bool:
        node = getattr(tensor, "_node", None)
        return isinstance(node, TapeNode) and node in self._arrays

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter(self._arrays.values())

    def __repr__(self) -> str:
        return f"Gradients({len(self._arrays)} tensors)"


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` over the axes along which an input of ``shape`` was broadcast."""
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = grad.sum(axis=tuple(range(extra)))
    axes = tuple(i for i, d in enumerate(shape) if d == 1 and grad.shape[i] != 1)
    if axes:
        grad = grad.sum(axis=axes, keepdims=True)
    return grad.reshape(shape)


def _reduced_axes(ndim: int, axis: Any) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    return axis if isinstance(axis, tuple) else (axis,)


def _expand(
    grad: np.ndarray, shape: tuple[int, ...], axis: Any, keepdims: bool
) -> np.ndarray:
    """Broadcast the gradient of a reduction back to the reduced input's shape."""
    if not keepdims:
        axes = _reduced_axes(len(shape), axis)
        grad = grad.reshape(tuple(1 if i in axes else d for i, d in enumerate(shape)))
    return np.broadcast_to(grad, shape)


Vjp = Callable[[np.ndarray, TapeNode], tuple[Any, ...]]


def _vjp_pow(g: np.ndarray, node: TapeNode) -> tuple[Any, ...]:
    a, b = node.inputs
    out = node.output
    grad_a = g * b * np.power(a, b - 1) if node.parents[0] is not None else None
    grad_b = None
    if node.parents[1] is not None:
        positive = a > 0
        grad_b = g * out * np.log(np.where(positive, a, 1)) * positive
    return grad_a, grad_b


def _vjp_matmul(g: np.ndarray, node: TapeNode) -> tuple[Any, ...]:
    a, b = node.inputs
    if a.ndim >= 2 and b.ndim >= 2 and a.shape[:-2] == b.shape[:-2]:
        # The common case (matrices, equal batches): no promotion, nothing to reduce.
        return (
            g @ b.swapaxes(-1, -2) if node.parents[0] is not None else None,
            a.swapaxes(-1, -2) @ g if node.parents[1] is not None else None,
        )
    # 1-d operands are promoted to matrices (as np.matmul does) and squeezed back after.
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    g2 = g
    if b.ndim == 1:
        g2 = np.expand_dims(g2, -1)
    if a.ndim == 1:
        g2 = np.expand_dims(g2, -2)
    grad_a = grad_b = None
    if node.parents[0] is not None:
        grad_a = unbroadcast(np.matmul(g2, np.swapaxes(b2, -1, -2)), a2.shape).reshape(
            a.shape
        )
    if node.parents[1] is not None:
        grad_b = unbroadcast(np.matmul(np.swapaxes(a2, -1, -2), g2), b2.shape).reshape(
            b.shape
        )
    return grad_a, grad_b


def _vjp_sum(g: np.ndarray, node: TapeNode) -> tuple[Any, ...]:
    (x,) = node.inputs
    return (
        _expand(g, x.shape, node.attrs.get("axis"), node.attrs.get("keepdims", False)),
    )


def _vjp_mean(g: np.ndarray, node: TapeNode) -> tuple[Any, ...]:
    (x,) = node.inputs
    axis = node.attrs.get("axis")
    count = 1
    for a in _reduced_axes(x.ndim, axis):
        count *= x.shape[a]
    return (
        _expand(g, x.shape, axis, node.attrs.get("keepdims", False)) / max(count, 1),
    )


def _vjp_max(g: np.ndarray, node: TapeNode) -> tuple[Any, ...]:
    (x,) = node.inputs
    axis = node.attrs.get("axis")
    keepdims = node.attrs.get("keepdims", False)
    top = _expand(node.output, x.shape, axis, keepdims)
    mask = (x == top).astype(x.dtype)
    ties = _expand(mask.sum(axis=axis, keepdims=True), x.shape, axis, True)
    return (_expand(g, x.shape, axis, keepdims) * mask / ties,)


def _vjp_transpose(g: np.ndarray, node: TapeNode) -> tuple[Any, ...]:
    axes = node.attrs.get("axes")
    return (np.transpose(g) if axes is None else np.transpose(g, np.argsort(axes)),)


def _vjp_astype(g: np.ndarray, node: TapeNode) -> tuple[Any, ...]:
    (x,) = node.inputs
    return (g.astype(x.dtype) if x.dtype.kind == "f" else None,)


_VJPS: dict[str, Vjp] = {
    "neg": lambda g, n: (-g,),
    "exp": lambda g, n: (g * n.output,),
    "log": lambda g, n: (g / n.inputs[0],),
    "sqrt": lambda g, n: (g / (2 * n.output),),
    "tanh": lambda g, n: (g * (1 - n.output * n.output),),
    "sigmoid": lambda g, n: (g * n.output * (1 - n.output),),
    "relu": lambda g, n: (g * (n.inputs[0] > 0),),
    "abs": lambda g, n: (g * np.sign(n.inputs[0]),),
    "add": lambda g, n: (g, g),
    "sub": lambda g, n: (g, -g),
    "mul": lambda g, n: (g * n.inputs[1], g * n.inputs[0]),
    "div": lambda g, n: (g / n.inputs[1], -g * n.output / n.inputs[1]),
    "pow": _vjp_pow,
    "matmul": _vjp_matmul,
    "sum": _vjp_sum,
    "mean": _vjp_mean,
    "max": _vjp_max,
    "reshape": lambda g, n: (np.reshape(g, n.inputs[0].shape),),
    "transpose": _vjp_transpose,
    "astype": _vjp_astype,
    "copy": lambda g, n: (g,),
}


def _newest_first(root: TapeNode) -> list[TapeNode]:
    """Every node under ``root``, each after all the nodes computed from it."""
    # A loop, not recursion: long training chains must not hit the recursion limit.
    seen = {root}
    stack = [root]
    while stack:
        for parent in stack.pop().parents:
            if parent is not None and parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return sorted(seen, key=lambda node: node.index, reverse=True)


def backward(root: TapeNode | None, output: np.ndarray) -> Gradients:
    """Gradients of ``sum(output)`` with respect to every leaf (``require_grad``) under ``root``.

    A non-scalar output is seeded with ones (the gradient of its sum).
    """
    if root is None:
        return Gradients({})
    grads: dict[TapeNode, np.ndarray] = {root: np.ones_like(output)}
    result: dict[TapeNode, np.ndarray] = {}
    with np.errstate(all="ignore"):
        for node in _newest_first(root):
            g = grads.pop(node, None)
            if g is None:
                continue
            if node.op == "leaf":
                result[node] = np.array(g, copy=True)
                continue
            for parent, x, grad in zip(
                node.parents, node.inputs, _VJPS[node.op](g, node)
            ):
                if parent is None or grad is None:
                    continue
                grad = unbroadcast(np.asarray(grad), x.shape).astype(
                    x.dtype, copy=False
                )
                previous = grads.get(parent)
                grads[parent] = grad if previous is None else previous + grad
    return Gradients(result)
