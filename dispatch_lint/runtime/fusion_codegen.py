"""Source generation and compilation of fused element-wise kernels.

A fused group of element-wise nodes becomes one scalar Python function, compiled by
``numba.vectorize`` into a real NumPy ufunc, so it broadcasts, accepts ``out=`` and costs one
pass over memory. A 2-d group with an argument broadcast along a row or a column (a bias
added to a matmul's result) becomes a loop over rows and columns compiled by ``numba.njit``
instead (``loop_kernel_source``): NumPy calls a ufunc's inner loop once per row there, and
on short rows those calls cost more than the arithmetic (a (1562, 64) float32 matrix plus a
(64,) row: 23 us as a ufunc, 9 us as a loop). Each distinct source is compiled once per process (``compiled_kernel``
caches it under a lock) and, when a writable cache folder exists, once per machine: the
source is written to a file named by its hash so Numba's ``cache=True`` can find it again.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import math
import os
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = [
    "FUSABLE_DTYPES",
    "FusedTerm",
    "KernelCounters",
    "compiled_kernel",
    "kernel_cache_dir",
    "kernel_counters",
    "kernel_source",
    "loop_kernel_source",
    "stream_kernel_source",
    "streaming_kernel",
]

#: Dtypes a generated kernel may read or write: the runtime's dtypes, spelled for Numba.
FUSABLE_DTYPES: dict[np.dtype, str] = {
    np.dtype(np.bool_): "boolean",
    np.dtype(np.int64): "int64",
    np.dtype(np.float32): "float32",
    np.dtype(np.float64): "float64",
}

_CAST = {
    np.dtype(np.bool_): "np.bool_",
    np.dtype(np.int64): "np.int64",
    np.dtype(np.float32): "np.float32",
    np.dtype(np.float64): "np.float64",
}

_BINARY_SYMBOL = {
    "add": "+",
    "sub": "-",
    "mul": "*",
    "div": "/",
    "lt": "<",
    "le": "<=",
    "gt": ">",
    "ge": ">=",
    "eq": "==",
    "ne": "!=",
}
_COMPARISONS = frozenset({"lt", "le", "gt", "ge", "eq", "ne"})


@dataclass(frozen=True)
class FusedTerm:
    """One node of a fused group, in the order the kernel computes them.

    ``inputs`` name earlier terms (``("t", i)``), kernel arguments (``("a", j)``) or inlined
    0-d constants (``("c", repr)`` where repr is already a typed Numba literal). ``exponent``
    is set for ``pow`` by a small integer constant, unrolled into multiplications.
    """

    op: str
    inputs: tuple[tuple[str, object], ...]
    input_dtypes: tuple[np.dtype, ...]
    dtype: np.dtype
    exponent: int | None = None


def literal(value: np.ndarray) -> str:
    """A 0-d constant as a Numba literal of its exact dtype (so float32 math stays float32)."""
    dtype = value.dtype
    if dtype == np.bool_:
        return "True" if bool(value) else "False"
    if dtype.kind == "f":
        number = float(value)
        if math.isnan(number):
            text = "np.nan"
        elif math.isinf(number):
            text = "np.inf" if number > 0 else "-np.inf"
        else:
            # repr of a float64 round-trips exactly, also for a float32 value widened to it.
            text = repr(number)
        return f"{_CAST[dtype]}({text})"
    return f"{_CAST[dtype]}({int(value)})"


def _operand(ref: tuple[str, object], argument: str) -> str:
    kind, what = ref
    if kind == "t":
        return f"t{what}"
    if kind == "a":
        return f"{argument}{what}"
    return str(what)


def _cast(expr: str, source: np.dtype, target: np.dtype) -> str:
    return expr if source == target else f"{_CAST[target]}({expr})"


def _term_expression(term: FusedTerm, argument: str) -> str:
    operands = [_operand(ref, argument) for ref in term.inputs]
    target = term.dtype
    op = term.op
    if op in _COMPARISONS:
        common = np.result_type(*term.input_dtypes)
        left, right = (_cast(x, d, common) for x, d in zip(operands, term.input_dtypes))
        return f"{left} {_BINARY_SYMBOL[op]} {right}"
    if op in _BINARY_SYMBOL:
        left, right = (_cast(x, d, target) for x, d in zip(operands, term.input_dtypes))
        return f"{_CAST[target]}({left} {_BINARY_SYMBOL[op]} {right})"
    (x,) = operands[:1]
    x = _cast(x, term.input_dtypes[0], target)
    if op == "neg":
        return f"-{x}"
    if op == "abs":
        return f"abs({x})"
    if op == "relu":
        # np.maximum(x, 0) propagates NaN: "not (x < 0)" keeps NaN where "x > 0" would not.
        return f"{x} if not ({x} < {_CAST[target]}(0)) else {_CAST[target]}(0)"
    if op == "sqrt":
        return f"np.sqrt({x})"
    if op == "astype":
        return x
    if op == "pow" and term.exponent is not None:
        return " * ".join([x] * term.exponent)
    raise ValueError(f"operation {op!r} cannot be fused")


def kernel_source(
    terms: tuple[FusedTerm, ...], argument_dtypes: tuple[np.dtype, ...]
) -> str:
    """The module source of one fused kernel; the last term is the kernel's result."""
    arguments = ", ".join(f"a{j}" for j in range(len(argument_dtypes)))
    body = _body(terms, "a", "    ")
    result = FUSABLE_DTYPES[terms[-1].dtype]
    signature = f"{result}({', '.join(FUSABLE_DTYPES[d] for d in argument_dtypes)})"
    return "\n".join(
        [
            '"""Fused element-wise kernel generated by dispatch_lint.runtime.fusion."""',
            "import numba",
            "import numpy as np",
            "",
            "",
            f"def kernel({arguments}):",
            *body,
            f"    return t{len(terms) - 1}",
            "",
            "",
            f"ufunc = numba.vectorize([{signature!r}], cache=CACHE)(kernel).ufunc",
            "",
        ]
    )


def _body(terms: tuple[FusedTerm, ...], argument: str, indent: str) -> list[str]:
    """One line per term, ``t{i} = ...``, reading the scalar arguments ``{argument}{j}``."""
    return [
        f"{indent}t{i} = {_CAST[term.dtype]}({_term_expression(term, argument)})"
        for i, term in enumerate(terms)
    ]


def loop_kernel_source(
    terms: tuple[FusedTerm, ...], argument_indices: tuple[str, ...]
) -> str:
    """The module source of one fused kernel over a 2-d output, as explicit loops.

    ``argument_indices`` says how each argument is read at row ``i``, column ``j``: ``"i, j"``
    at full shape, ``"j"`` for a row broadcast down the rows (``(cols,)``), ``"0, j"`` for
    ``(1, cols)``, ``"i, 0"`` for a column ``(rows, 1)``. The kernel is called as a ufunc
    is, ``kernel(*arguments, out)``, and returns ``out``.
    """
    count = len(argument_indices)
    arguments = ", ".join([*(f"a{j}" for j in range(count)), "out"])
    loads = [
        f"            x{j} = a{j}[{index}]" for j, index in enumerate(argument_indices)
    ]
    return "\n".join(
        [
            '"""Fused element-wise loop kernel generated by dispatch_lint.runtime.fusion."""',
            "import numba",
            "import numpy as np",
            "",
            "",
            f"def kernel({arguments}):",
            "    rows, cols = out.shape",
            "    for i in range(rows):",
            "        for j in range(cols):",
            *loads,
            *_body(terms, "x", "            "),
            f"            out[i, j] = t{len(terms) - 1}",
            "    return out",
            "",
            "",
            # NumPy's error model: x / 0 is inf or nan, as in a ufunc, not ZeroDivisionError.
            'ufunc = numba.njit(cache=CACHE, error_model="numpy")(kernel)',
            "",
        ]
    )


def stream_kernel_source(
    terms: tuple[FusedTerm, ...], argument_dtypes: tuple[np.dtype, ...]
) -> str:
    """The module source of one fused kernel whose result is written with streaming stores
    (see :mod:`.fusion_stream`): over 1-d contiguous arrays of one length, called as a
    ufunc is, ``kernel(*arguments, out)``, returning ``out``."""
    count = len(argument_dtypes)
    arguments = ", ".join([*(f"a{j}" for j in range(count)), "out"])
    last = f"t{len(terms) - 1}"

    def element(index: str, source: str, indent: str) -> list[str]:
        loads = [f"{indent}x{j} = {source}{j}[{index}]" for j in range(count)]
        return [*loads, *_body(terms, "x", indent)]

    slices = [f"        b{j} = a{j}[start:start + BLOCK]" for j in range(count)]
    return "\n".join(
        [
            '"""Fused kernel with streaming stores, by dispatch_lint.runtime.fusion."""',
            # Numba's disk cache knows this file only: the helpers' own code is named here,
            # so that a change to them is a new kernel, never stale machine code.
            f"# fusion_stream {_stream_helpers_stamp()}",
            "import numba",
            "import numpy as np",
            "",
            "from dispatch_lint.runtime.fusion_stream import (",
            "    ALIGNMENT,",
            "    BLOCK,",
            "    store_fence,",
            "    stream_block,",
            ")",
            "",
            "",
            f"def kernel({arguments}):",
            "    n = out.shape[0]",
            "    address = out.ctypes.data",
            "    head = n",
            "    if address % out.itemsize == 0:",
            "        head = min(n, (ALIGNMENT - address % ALIGNMENT) % ALIGNMENT // out.itemsize)",
            "    for i in range(head):",
            *element("i", "a", "        "),
            f"        out[i] = {last}",
            f"    block = np.empty(BLOCK, {_CAST[terms[-1].dtype]})",
            "    start = head",
            "    while start + BLOCK <= n:",
            # Slices: indices the compiler knows are in range, so the loop is vectorised.
            *slices,
            "        for k in range(BLOCK):",
            *element("k", "b", "            "),
            f"            block[k] = {last}",
            "        stream_block(out, start, block)",
            "        start += BLOCK",
            "    for i in range(start, n):",
            *element("i", "a", "        "),
            f"        out[i] = {last}",
            "    store_fence()",
            "    return out",
            "",
            "",
            # NumPy's error model, as in a ufunc; no GIL, so helper threads run chunks at once.
            'ufunc = numba.njit(cache=CACHE, error_model="numpy", nogil=True)(kernel)',
            "",
        ]
    )


@functools.cache
def _stream_helpers_stamp() -> str:
    """A digest of ``fusion_stream``'s source, which streaming kernels compile in."""
    spec = importlib.util.find_spec("dispatch_lint.runtime.fusion_stream")
    origin = spec.origin if spec is not None else None
    try:
        text = Path(origin).read_bytes() if origin else b""
    except OSError:
        text = b""
    return hashlib.sha256(text).hexdigest()[:16]


def streaming_kernel(source: str, fallback: str) -> Callable[..., np.ndarray]:
    """A kernel of ``stream_kernel_source`` called as a ufunc on arrays of any number of
    dimensions: C-contiguous arrays run it on their flat views; any other layout runs
    ``fallback`` (the same terms as a ``numba.vectorize`` ufunc, compiled on first need)."""
    kernel = compiled_kernel(source)

    def run(*arrays: np.ndarray) -> np.ndarray:
        out = arrays[-1]
        if all(a.flags.c_contiguous for a in arrays):
            kernel(*[a.reshape(-1) for a in arrays])
            return out
        return compiled_kernel(fallback)(*arrays)

    return run


@dataclass
class KernelCounters:
    """How many fused kernels this process compiled (or loaded from Numba's disk cache) and
    how many times an already compiled one was handed out again."""

    compiled: int = 0
    reused: int = 0


_kernels: dict[str, np.ufunc] = {}
_kernels_lock = threading.Lock()
kernel_counters = KernelCounters()
_UNSET = object()
_cache_dir: object = _UNSET


def kernel_cache_dir() -> Path | None:
    """Where generated kernel sources live so Numba can cache their machine code, or None.

    ``DISPATCH_LINT_KERNEL_CACHE`` wins; else the user cache folder; else the temp folder.
    """
    global _cache_dir
    if _cache_dir is _UNSET:
        candidates = []
        if os.environ.get("DISPATCH_LINT_KERNEL_CACHE"):
            candidates.append(Path(os.environ["DISPATCH_LINT_KERNEL_CACHE"]))
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
            os.path.expanduser("~"), ".cache"
        )
        candidates.append(Path(base) / "dispatch-lint" / "fused-kernels")
        candidates.append(
            Path(tempfile.gettempdir()) / f"dispatch-lint-{os.getuid()}-kernels"
        )
        _cache_dir = None
        for folder in candidates:
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError:
                continue
            if os.access(folder, os.W_OK):
                _cache_dir = folder
                break
    return _cache_dir  # type: ignore[return-value]


def _build(source: str) -> np.ufunc:
    digest = hashlib.sha256(source.encode()).hexdigest()[:20]
    folder = kernel_cache_dir()
    if folder is None:
        namespace: dict[str, object] = {"CACHE": False}
        # Our own generated source (no user text in it), compiled without a disk cache.
        exec(compile(source, f"<fused kernel {digest}>", "exec"), namespace)  # noqa: S102
        return namespace["ufunc"]  # type: ignore[return-value]
    path = folder / f"fused_{digest}.py"
    if not path.exists():
        # Written once and never rewritten: Numba's cache index is keyed by the file's stamp.
        partial = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        partial.write_text(source)
        os.replace(partial, path)
    spec = importlib.util.spec_from_file_location(f"dispatch_lint_fused_{digest}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.CACHE = True  # type: ignore[attr-defined]
    # Numba's disk cache re-imports the kernel's module by name when it loads machine code.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.ufunc  # type: ignore[no-any-return]


def compiled_kernel(source: str) -> np.ufunc:
    """The ufunc of a generated kernel source, compiled at most once per process."""
    kernel = _kernels.get(source)
    if kernel is not None:
        with _kernels_lock:
            kernel_counters.reused += 1
        return kernel
    with _kernels_lock:
        kernel = _kernels.get(source)
        if kernel is None:
            kernel = _build(source)
            _kernels[source] = kernel
            kernel_counters.compiled += 1
        else:
            kernel_counters.reused += 1
        return kernel
