"""Source generation and compilation of fused element-wise kernels.

A fused group whose arguments all have its result's shape becomes a range kernel
(``range_kernel_source``, run by ``RangeKernel``): one compiled loop over the flat arrays,
one pass over memory, whose chunks the threads of ``fusion_threads.Team`` claim from an
atomic counter, with a short loop per transcendental op (``_stages``) and, for a large
program output, streaming stores. Transcendental ops are the vectorised functions of
``fusion_math``. A group reading a broadcast argument becomes one scalar Python function
compiled by ``numba.vectorize`` into a real NumPy ufunc (``kernel_source``), so it
broadcasts and accepts ``out=``; that ufunc is also the range kernel's fallback for arrays
that are not C-contiguous. A 2-d group with an argument broadcast along a row or a column
(a bias added to a matmul's result) becomes a loop over rows and columns compiled by
``numba.njit`` instead (``loop_kernel_source``): NumPy calls a ufunc's inner loop once per
row there, and on short rows those calls cost more than the arithmetic (a (1562, 64)
float32 matrix plus a (64,) row: 23 us as a ufunc, 9 us as a loop). Each distinct source is
compiled once per process (``compiled_kernel`` caches it under a lock) and, when a writable
cache folder exists, once per machine: the source is written to a file named by its hash so
Numba's ``cache=True`` can find it again.
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
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dispatch_lint.runtime import fusion_threads
from dispatch_lint.runtime.fusion_math import FUNCTIONS

__all__ = [
    "CHUNK",
    "FUSABLE_DTYPES",
    "PARALLEL_WORK",
    "TRANSCENDENTAL",
    "FusedTerm",
    "KernelCounters",
    "RangeKernel",
    "compiled_kernel",
    "kernel_cache_dir",
    "kernel_counters",
    "kernel_source",
    "loop_kernel_source",
    "range_kernel_source",
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
#: Ops computed by a function of ``fusion_math`` (float32 and float64 only); each costs
#: several times an arithmetic op, so a range kernel computes each in a loop of its own.
TRANSCENDENTAL = frozenset({"exp", "log", "tanh", "sigmoid"})


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
    if op in TRANSCENDENTAL:
        return f"{FUNCTIONS[(op, target)]}({x})"
    if op == "astype":
        return x
    if op == "pow" and term.exponent is not None:
        return " * ".join([x] * term.exponent)
    raise ValueError(f"operation {op!r} cannot be fused")


def _header(docstring: str, terms: tuple[FusedTerm, ...], *helpers: str) -> list[str]:
    """A generated module's first lines: its imports, and a digest of each of our modules
    it compiles in (Numba's disk cache knows the kernel's own file only, so a change to
    those modules must make a new kernel source, never reuse stale machine code)."""
    functions = sorted(
        {FUNCTIONS[(t.op, t.dtype)] for t in terms if t.op in TRANSCENDENTAL}
    )
    modules = (["fusion_math"] if functions else []) + list(helpers)
    lines = [f'"""{docstring}"""']
    if modules:
        lines.append("# " + " ".join(f"{m} {_module_stamp(m)}" for m in modules))
    lines += ["import numba", "import numpy as np", ""]
    if functions:
        lines.append(
            f"from dispatch_lint.runtime.fusion_math import {', '.join(functions)}"
        )
    if "fusion_threads" in helpers:
        lines.append(
            "from dispatch_lint.runtime.fusion_threads import fetch_add, load, spin_pause"
        )
    if "fusion_stream" in helpers:
        lines.append(
            "from dispatch_lint.runtime.fusion_stream import ALIGNMENT, BLOCK, "
            "store_fence, stream_block"
        )
    return [*lines, "", ""]


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
            *_header(
                "Fused element-wise kernel generated by dispatch_lint.runtime.fusion.",
                terms,
            ),
            f"def kernel({arguments}):",
            *body,
            f"    return t{len(terms) - 1}",
            "",
            "",
            f"ufunc = numba.vectorize([{signature!r}], cache=CACHE)(kernel).ufunc",
            "",
        ]
    )


def _term_line(i: int, term: FusedTerm, argument: str) -> str:
    return f"t{i} = {_CAST[term.dtype]}({_term_expression(term, argument)})"


def _body(terms: tuple[FusedTerm, ...], argument: str, indent: str) -> list[str]:
    """One line per term, ``t{i} = ...``, reading the scalar arguments ``{argument}{j}``."""
    return [indent + _term_line(i, term, argument) for i, term in enumerate(terms)]


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
            *_header(
                "Fused element-wise loop kernel generated by dispatch_lint.runtime.fusion.",
                terms,
            ),
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


#: Element-steps of one chunk of a range kernel (see ``PARALLEL_WORK``), the unit its
#: threads claim: 16,384 elements of the 8-op chain (64 KiB of float32 per array, so a
#: chunk's arrays stay in the second-level cache), about 5,000 of a chain of three
#: transcendentals, which take 15 us in float32: chunks short enough that the threads
#: finish together and a caller waiting for a helper's last chunk waits little.
CHUNK = 1 << 17
#: Element-steps (elements x ops, a transcendental op counting ``HEAVY``) from which a
#: range kernel is run by every thread of the team. Measured on 2 cores with the helper
#: awake: the 8-op chain of 1e5 float32 (8e5) ran 24 us alone, 18 us on two; below that
#: the post and the meeting cost about what the second core saves.
PARALLEL_WORK = 1 << 19
#: What one transcendental op costs against one arithmetic op, about (exp of float32: 0.6
#: ns an element, against 0.05-0.1 ns for an add in the cache).
HEAVY = 8
_RANGE_BLOCK = 1024  # elements per block within a chunk; fusion_stream.BLOCK


def _stages(terms: tuple[FusedTerm, ...]) -> list[list[int]]:
    """The terms of each loop of a range kernel: a stage ends after each transcendental.

    One loop over all the terms of a long chain runs several times slower than its terms
    would alone (tanh-sigmoid-sqrt-log of 1e6 float32: 4.3 ms, against 2.9 ms as four
    loops over blocks of 1,024): its body is too long for the processor to overlap the
    dependent multiply-adds of one element with the next one's. A loop per transcendental
    keeps each body short; values pass between loops in small buffers that stay in the
    first-level cache, so the chain is still one pass over memory.
    """
    stages: list[list[int]] = [[]]
    for i, term in enumerate(terms):
        stages[-1].append(i)
        if term.op in TRANSCENDENTAL and i != len(terms) - 1:
            stages.append([])
    return [stage for stage in stages if stage]


def range_kernel_source(
    terms: tuple[FusedTerm, ...],
    argument_dtypes: tuple[np.dtype, ...],
    stream: bool = False,
) -> str:
    """The module source of one fused kernel over 1-d contiguous arrays of one length,
    whose chunks every thread of a ``fusion_threads.Team`` may claim.

    ``kernel(*arguments, out, counter, chunk, spins, wait)``: threads calling it with the
    same arguments compute the chunks of ``out`` between them. Each claims the next chunk of
    ``chunk`` elements from ``counter[0]``, computes it block by block (``_stages``) and
    counts it done in ``counter[8]``; ``counter[4]`` is set to the number of chunks. Chunks
    after the first start on a 64-byte boundary of ``out``. With ``wait``, the call then
    polls until every chunk is done (at most ``spins`` polls). Returns the polls it took, or
    -1 when chunks were still unfinished after ``spins``.
    With ``stream``, whole aligned blocks of the result go to memory with streaming stores
    (see :mod:`.fusion_stream`).
    """
    count = len(argument_dtypes)
    stages = _stages(terms)
    last = len(terms) - 1
    stage_of = {i: n for n, stage in enumerate(stages) for i in stage}
    # Terms read by a later stage than their own pass through a block buffer.
    crossing = sorted(
        {
            ref[1]
            for i, term in enumerate(terms)
            for ref in term.inputs
            if ref[0] == "t" and stage_of[ref[1]] != stage_of[i]  # type: ignore[index]
        }
    )
    result = _CAST[terms[-1].dtype]
    lines = _header(
        "Fused range kernel generated by dispatch_lint.runtime.fusion.",
        terms,
        "fusion_threads",
        *(["fusion_stream"] if stream else []),
    )
    arguments = ", ".join([*(f"a{j}" for j in range(count)), "out"])
    lines += [
        f"def kernel({arguments}, counter, chunk, spins, wait):",
        "    n = out.shape[0]",
        "    itemsize = out.itemsize",
        "    address = out.ctypes.data",
        "    alignment = 64",
        # The first chunk ends where the others start on a cache line (and their streamed
        # blocks on the alignment they need); a buffer off the element grid never aligns.
        "    head = 0",
        "    if address % itemsize == 0:",
        "        head = (alignment - address % alignment) % alignment // itemsize",
        "    chunks = max(1, -(-(n - head) // chunk))",
        "    counter[4] = chunks",
    ]
    lines += [
        f"    buffer{i} = np.empty({_RANGE_BLOCK}, {_CAST[terms[i].dtype]})"
        for i in crossing
    ]
    if stream:
        lines.append(f"    block = np.empty(BLOCK, {result})")
    lines += [
        "    while True:",
        "        c = fetch_add(counter, 0, 1)",
        "        if c >= chunks:",
        "            break",
        "        start = 0 if c == 0 else head + c * chunk",
        "        stop = min(n, head + (c + 1) * chunk)",
        "        s = start",
        "        while s < stop:",
        f"            m = min({_RANGE_BLOCK}, stop - s)",
        "            if s == 0 and head > 0:",
        "                m = min(m, head)",
        *(f"            b{j} = a{j}[s:s + m]" for j in range(count)),
        *(f"            v{i} = buffer{i}[:m]" for i in crossing),
        "            o = out[s:s + m]" if not stream else "            o = block[:m]",
    ]
    for stage in stages:
        members = set(stage)
        used_arguments = sorted(
            {ref[1] for i in stage for ref in terms[i].inputs if ref[0] == "a"}  # type: ignore[type-var]
        )
        loaded = sorted(
            {
                ref[1]
                for i in stage
                for ref in terms[i].inputs
                if ref[0] == "t" and ref[1] not in members
            }  # type: ignore[type-var]
        )
        lines.append("            for k in range(m):")
        lines += [f"                x{j} = b{j}[k]" for j in used_arguments]
        lines += [f"                t{i} = v{i}[k]" for i in loaded]
        for i in stage:
            lines.append("                " + _term_line(i, terms[i], "x"))
            if i in crossing:
                lines.append(f"                v{i}[k] = t{i}")
        if last in members:
            lines.append(f"                o[k] = t{last}")
    if stream:
        lines += [
            "            if m == BLOCK and (address + s * itemsize) % ALIGNMENT == 0:",
            "                stream_block(out, s, block)",
            "            else:",
            "                target = out[s:s + m]",
            "                for k in range(m):",
            "                    target[k] = o[k]",
        ]
    lines += [
        "            s += m",
        # Streamed stores are ordered before the chunk is counted done.
        *(["        store_fence()"] if stream else []),
        "        fetch_add(counter, 8, 1)",
        # The caller waits for chunks a helper is still computing; it returns how many
        # polls that took (-1: more than ``spins``, chunks still unfinished).
        "    polls = 0",
        "    if wait:",
        "        while load(counter, 8) < chunks:",
        "            if polls == spins:",
        "                return -1",
        "            spin_pause()",
        "            polls += 1",
        "    return polls",
        "",
        "",
        # No GIL: the team's threads run it at once. NumPy's error model, as in a ufunc.
        'ufunc = numba.njit(cache=CACHE, error_model="numpy", nogil=True)(kernel)',
        "",
    ]
    return "\n".join(lines)


def stream_kernel_source(
    terms: tuple[FusedTerm, ...], argument_dtypes: tuple[np.dtype, ...]
) -> str:
    """``range_kernel_source`` with streaming stores."""
    return range_kernel_source(terms, argument_dtypes, stream=True)


@functools.cache
def _module_stamp(module: str) -> str:
    """A digest of the source of ``dispatch_lint.runtime.<module>``."""
    spec = importlib.util.find_spec(f"dispatch_lint.runtime.{module}")
    origin = spec.origin if spec is not None else None
    try:
        text = Path(origin).read_bytes() if origin else b""
    except OSError:
        text = b""
    return hashlib.sha256(text).hexdigest()[:16]


def work(terms: tuple[FusedTerm, ...]) -> int:
    """Element-steps per element of a fused group (see ``PARALLEL_WORK``)."""
    return sum(HEAVY if t.op in TRANSCENDENTAL else 1 for t in terms)


class RangeKernel:
    """A range kernel (``range_kernel_source``) called as a ufunc is, ``kernel(*arrays,
    out)``, on arrays of one shape: C-contiguous arrays run it on their flat views, on
    every thread of the team when the run has ``PARALLEL_WORK`` or more and its policy
    times the team faster; any other layout
    runs ``fallback`` (the same terms as a ``numba.vectorize`` ufunc, compiled on first
    need)."""

    def __init__(
        self,
        source: str,
        fallback: str,
        work_per_element: int = 1,
        parallel_work: int = PARALLEL_WORK,
    ) -> None:
        self.kernel = compiled_kernel(source)
        self.fallback = fallback
        self.work_per_element = max(1, work_per_element)
        #: Whether the team joins, timed both ways (the team loses on a busy machine).
        self.policy = fusion_threads.HelperPolicy()
        #: Elements from which the team runs it.
        self.parallel_from = -(-parallel_work // self.work_per_element)

    def _chunk(self) -> int:
        # Whole blocks, so that every chunk after the first starts on a 64-byte boundary
        # and streams its blocks (5,242 elements would put each chunk off the line).
        elements = CHUNK // self.work_per_element
        if elements >= _RANGE_BLOCK:
            return elements // _RANGE_BLOCK * _RANGE_BLOCK
        return max(16, elements // 16 * 16)

    def __call__(self, *arrays: np.ndarray) -> np.ndarray:
        out = arrays[-1]
        for a in arrays:
            if not a.flags.c_contiguous:
                return compiled_kernel(self.fallback)(*arrays)  # type: ignore[no-any-return]
        if out.ndim != 1:
            arrays = tuple([a.reshape(-1) for a in arrays])
        counter = np.zeros(16, np.int64)
        n = out.size
        if n >= self.parallel_from:
            team = fusion_threads.team()
            if team.helpers:
                joining = self.policy()
                start = time.perf_counter()
                if joining:
                    team.run(
                        self.kernel,
                        (*arrays, counter, self._chunk(), team.spins),
                        lambda: bool(counter[8] >= counter[4]),
                    )
                else:
                    self.kernel(*arrays, counter, n, 0, False)
                self.policy.record(joining, time.perf_counter() - start)
                return out
        self.kernel(*arrays, counter, n or 1, 0, False)
        return out


def streaming_kernel(source: str, fallback: str) -> Callable[..., np.ndarray]:
    """A ``RangeKernel`` of a streaming kernel source (see ``stream_kernel_source``)."""
    return RangeKernel(source, fallback)


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
