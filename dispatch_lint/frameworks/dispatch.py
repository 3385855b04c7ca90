"""The dispatch runtime's model: what each name of ``dispatch_lint.runtime`` does to devices
and tensors.

Its data-less values are capture tensors: tensors on a ``Capture()`` device, born from
``placeholder`` or from a creation function given a capture device. The interpreter's half
is :mod:`dispatch_lint.analyzer.dataflow.runtime`. Names are matched by their last component
under ``dispatch_lint.runtime`` (``dispatch.placeholder``, ``runtime.capture.placeholder`` and
``from dispatch_lint.runtime import placeholder as ph`` are one function).
"""

from __future__ import annotations

from dispatch_lint.frameworks.model import ABSTRACT, FrameworkModel, Sink, sinks_table

__all__ = [
    "AUTODIFF_METHODS",
    "CREATORS",
    "DATA_READ_BUILTINS",
    "DATA_READ_FUNCTIONS",
    "DATA_READ_METHODS",
    "DEVICE_CLASSES",
    "DEVICE_STRINGS",
    "MODEL",
    "NON_TENSOR_ATTRIBUTES",
    "RUNTIME",
    "SAME_DEVICE_FUNCTIONS",
    "SAME_DEVICE_METHODS",
    "runtime_name",
]

RUNTIME = "dispatch_lint.runtime"

# ------------------------------------------------------------------ contexts and sources

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

# ---------------------------------------------------------------------------- propagation

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

# ---------------------------------------------------------------------------------- sinks

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

# ----------------------------------------------------------------------------- sanitizers

#: Runtime names that prove a value is not a capture tensor, or give real tensors.
SANITIZERS = frozenset({"ensure_not_capture", "is_capture", "no_capture", "replay"})


def runtime_name(qualname: str) -> str | None:
    """The runtime API name ``qualname`` denotes (its last component), or None when it is not
    under ``dispatch_lint.runtime``."""
    if qualname == RUNTIME:
        return None
    if qualname.startswith(RUNTIME + "."):
        return qualname.rsplit(".", 1)[1]
    return None


def _runtime_sinks() -> dict[str, Sink]:
    # The dispatch rules word their findings from the catalog; these entries say which
    # operation is which rule, for the docs and for anything that asks the model.
    sinks = [Sink(f".{m}()", "DL001", "CaptureAutodiffError", "") for m in sorted(
        AUTODIFF_METHODS)]
    sinks += [Sink(f".{m}()", "DL003", "CaptureDataError", "") for m in sorted(
        DATA_READ_METHODS)]
    sinks += [Sink(f"{b}()", "DL003", "CaptureDataError", "") for b in sorted(
        DATA_READ_BUILTINS)]
    sinks += [
        Sink("asarray()", "DL003", "CaptureDataError", ""),
        Sink("array()", "DL003", "CaptureDataError", ""),
        Sink("condition", "DL003", "CaptureDataError", ""),
        Sink("format", "DL003", "CaptureDataError", ""),
        Sink("format()", "DL003", "CaptureDataError", ""),
        Sink(".to_device()", "DL002", "CaptureTransferError", ""),
        Sink("Autodiff", "DL004", "CaptureAutodiffWarning", ""),
        Sink("binop", "DL008", "DeviceMismatchError", ""),
    ]
    return sinks_table(*(Sink(s.operation, s.rule, s.error, s.fix, frozenset({ABSTRACT}))
                         for s in sinks))


MODEL = FrameworkModel(
    name="dispatch",
    modules=(RUNTIME,),
    sources={
        **{name: "device" for name in DEVICE_CLASSES},
        **{name: "tensor" for name in CREATORS},
        **{f"device({text!r})": "device" for text in DEVICE_STRINGS},
    },
    concrete_attributes=NON_TENSOR_ATTRIBUTES,
    same_kind_methods=SAME_DEVICE_METHODS,
    sinks=_runtime_sinks(),
    builtin_sinks={name: f"{name}()" for name in DATA_READ_BUILTINS},
    method_sinks={name: f".{name}()" for name in DATA_READ_METHODS | AUTODIFF_METHODS},
    function_sinks={name: name.rsplit(".", 1)[1] + "()" for name in DATA_READ_FUNCTIONS},
    sanitizers=SANITIZERS,
)
