"""The API model: what each name of ``dispatch_lint.runtime`` does to devices and tensors.

One table, kept as data (TorchFix-style) so that the interpreter, the rules and the user's
``[tool.dispatch-lint]`` extensions all read the same facts. Names are matched by their last
component under ``dispatch_lint.runtime`` (``dispatch.placeholder``, ``runtime.capture.placeholder``
and ``from dispatch_lint.runtime import placeholder as ph`` are one function).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "AUTODIFF_METHODS",
    "CREATORS",
    "DATA_READ_BUILTINS",
    "DATA_READ_FUNCTIONS",
    "DATA_READ_METHODS",
    "DEVICE_CLASSES",
    "DEVICE_STRINGS",
    "NON_TENSOR_ATTRIBUTES",
    "RUNTIME",
    "SAME_DEVICE_FUNCTIONS",
    "SAME_DEVICE_METHODS",
    "Model",
    "runtime_name",
]

RUNTIME = "dispatch_lint.runtime"

#: Device classes and the kind of device they make (``Autodiff`` wraps one).
DEVICE_CLASSES: dict[str, str] = {"NumPy": "numpy", "Numba": "numba", "Capture": "capture"}

#: ``dispatch.device(...)`` strings and ``device="..."`` keywords.
DEVICE_STRINGS: dict[str, tuple[str, ...]] = {
    "numpy": ("numpy",),
    "numba": ("numba",),
    "capture": ("capture",),
    "autodiff:numpy": ("autodiff", "numpy"),
    "autodiff:numba": ("autodiff", "numba"),
    "autodiff:capture": ("autodiff", "capture"),
}

#: Tensor creation functions: the position of their ``device`` argument.
#: Without a device they create on NumPy(), except ``placeholder`` (a fresh Capture()).
CREATORS: dict[str, int] = {
    "tensor": 1,
    "zeros": 1,
    "ones": 1,
    "full": 2,
    "rand": 2,
    "from_numpy": 1,
    "arange": 3,
    "placeholder": 1,
}

#: Methods that read a tensor's data (DL003 on a capture tensor).
DATA_READ_METHODS = frozenset({"numpy", "item", "tolist", "__array__", "__float__", "__int__"})
#: Builtins that read a tensor's data.
DATA_READ_BUILTINS = frozenset({"float", "int", "bool", "complex"})
#: Functions outside the runtime that read a tensor's data (through ``__array__``).
DATA_READ_FUNCTIONS = frozenset(
    {"numpy.asarray", "numpy.array", "numpy.asanyarray", "numpy.ascontiguousarray"}
)

#: Autodiff calls: DL001 on a capture tensor, DL006 on a tensor certainly on a plain device.
AUTODIFF_METHODS = frozenset({"backward", "require_grad", "grad", "inner"})

#: Tensor methods (and properties) whose result is a tensor on the receiver's device.
SAME_DEVICE_METHODS = frozenset(
    {
        "exp", "log", "sqrt", "tanh", "sigmoid", "relu", "abs", "sum", "mean", "max", "min",
        "reshape", "transpose", "matmul", "T", "neg", "pow", "clone", "squeeze", "unsqueeze",
        "add", "sub", "mul", "div", "softmax", "astype", "flatten", "view", "square",
    }
)  # fmt: skip
#: Runtime functions with the same behaviour (``dispatch.exp(t)``): device of the first tensor.
SAME_DEVICE_FUNCTIONS = frozenset(
    {"exp", "log", "sqrt", "tanh", "sigmoid", "relu", "abs", "sum", "mean", "max", "matmul"}
)

#: Tensor attributes that are not tensors (reading them is never a data read).
NON_TENSOR_ATTRIBUTES = frozenset(
    {"shape", "dtype", "is_capture", "is_autodiff", "ndim", "size", "name", "node"}
)

def runtime_name(qualname: str) -> str | None:
    """The runtime API name ``qualname`` denotes (its last component), or None when it is not
    under ``dispatch_lint.runtime``."""
    if qualname == RUNTIME:
        return None
    if qualname.startswith(RUNTIME + "."):
        return qualname.rsplit(".", 1)[1]
    return None


@dataclass(frozen=True)
class UserSink:
    """A user sink: a capture value passed as ``arg`` (position or keyword) is ``rule``."""

    name: str
    arg: int | str
    rule: str


@dataclass(frozen=True)
class Model:
    """The user's extensions of the model, by qualified name (``[tool.dispatch-lint]``)."""

    sources: frozenset[str] = frozenset()
    sinks: dict[str, tuple[UserSink, ...]] = field(default_factory=dict)
    sanitizers: frozenset[str] = frozenset()
