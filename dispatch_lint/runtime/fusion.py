"""Planning captured programs into fused kernels, and running the plans.

A captured ``Program`` is planned once per (program, input shapes and dtypes):

- nodes whose inputs are all constants are folded at planning time;
- maximal trees of element-wise nodes (a node joins its consumer's tree when that is its
  only consumer and it is not a program output) become ONE generated kernel, one pass
  over memory (``fusion_codegen``). Transcendental nodes (exp, log, tanh, sigmoid) join
  them as the vectorised functions of ``fusion_math``, within the ulps stated there; a
  lone transcendental or ``sqrt`` is a generated kernel too (NumPy's loops for them
  measured slower here); a lone arithmetic node runs as its NumPy ufunc, which needs no
  compile; a general ``pow`` runs as NumPy's;
- a tree whose arguments all have its result's shape runs as a range kernel: the caller
  and the helper threads of ``fusion_threads.Team`` share its chunks when it has enough
  work, and a large program output is written with streaming stores (``fusion_stream``).
  A 2-d tree reading an argument broadcast along its rows or columns (even a lone bias
  add) becomes a generated loop kernel instead, and other broadcasting trees a
  ``numba.vectorize`` ufunc;
- matmuls, reductions and shape ops run as kernels of the device's kernel table;
- every element-wise result that is not a program output is written into a buffer from a
  reused workspace, assigned by liveness so that a dead input's buffer is overwritten in place;
- consecutive element-wise steps that are not range kernels, over one large shape, run
  chunk by chunk, each chunk through all the steps, on every core when that times faster
  (``fusion_threads.ChunkPool``; else whole): ufuncs release the GIL, chunks write disjoint
  ranges, so the result is the whole-array one bit for bit. Reductions and matmuls are
  never split.

Plans are cached in the program's own ``cache`` dict; each thread running a plan has its own
workspace, so threads never share a buffer.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from dispatch_lint.runtime import fusion_threads
from dispatch_lint.runtime.backends.numpy import KERNELS as REFERENCE
from dispatch_lint.runtime.fusion_codegen import (
    FUSABLE_DTYPES,
    PARALLEL_WORK,
    TRANSCENDENTAL,
    FusedTerm,
    RangeKernel,
    compiled_kernel,
    kernel_counters,
    kernel_source,
    literal,
    loop_kernel_source,
    range_kernel_source,
    work,
)

__all__ = [
    "CHUNK_THRESHOLD",
    "CHUNK_WORK",
    "STREAM_BYTES",
    "FusionStats",
    "ProgramPlan",
    "plan_program",
    "run_conformed",
    "run_planned",
    "stats",
]

_COMPARISONS = ("lt", "le", "gt", "ge", "eq", "ne")
#: Element-wise ops a generated kernel computes (``pow`` only by a small integer constant).
_FUSABLE = frozenset(
    {
        "add",
        "sub",
        "mul",
        "div",
        "neg",
        "abs",
        "relu",
        "sqrt",
        "astype",
        "pow",
        *TRANSCENDENTAL,
        *_COMPARISONS,
    }
)
_REDUCTIONS = frozenset({"sum", "mean", "max"})
#: Element-wise ops as NumPy ufuncs, for nodes that run alone (no compile needed).
_UFUNCS: dict[str, np.ufunc] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.true_divide,
    "pow": np.power,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "eq": np.equal,
    "ne": np.not_equal,
    "neg": np.negative,
    "abs": np.absolute,
    "sqrt": np.sqrt,
    "exp": np.exp,
    "log": np.log,
    "tanh": np.tanh,
    "relu": np.maximum,
}
#: Work is counted in element-steps: a run of 4 steps over 1e5 elements is 4e5 of them.
#: A run of element-wise steps of at least this much work runs in chunks (about 0.4 ms of
#: work). Measured on 2 idle cores: at 4e5 element-steps (tanh-exp-sqrt-log over 1e5 float32,
#: 0.16 ms) a helper made the run 0.7-0.8x as fast, as waking it and meeting it cost more
#: than its share; from about 4e6 it pays 1.5-1.8x.
CHUNK_THRESHOLD = 1 << 20
#: Work per chunk, about: enough that the Python cost of a chunk (a microsecond or two per
#: ufunc call) stays a few percent, small enough for several chunks per thread, which
#: evens the threads' shares when one of them is slowed down.
CHUNK_WORK = 1 << 19
#: Program outputs of at least this many bytes reuse the last run's array once the caller has
#: dropped it. A fresh large array costs page faults on its first writes: after other code
#: has freed large arrays, glibc serves 32 MB from fresh 4 KiB pages, and the 8-op float64
#: chain over 4M elements ran in 6.0 ms that way against 3.2 ms into a reused array.
RECYCLE_BYTES = 1 << 20
#: ``sys.getrefcount`` of a workspace's array inside ``_UfuncStep.buffer`` when nothing else
#: holds it: the workspace list, the local name and the call's argument.
_HELD_BY_WORKSPACE_ONLY = 3
#: A fused group whose result is a program output of at least this many bytes, over
#: arguments of its own shape, writes it with streaming stores (see ``fusion_stream``):
#: past the cache's reach, sparing the read of each line before it is written pays (4M
#: float32, 16 MB: 1.50 ms -> 1.33 ms); a smaller result may still be in the cache when
#: the caller reads it.
STREAM_BYTES = 8 << 20
#: Exponents of ``pow`` by a constant that a fused kernel unrolls into multiplications.
_UNROLLED_EXPONENTS = frozenset({1, 2, 3, 4})


@dataclass(frozen=True)
class _Value:
    """One value of the planned graph: a program node, or a piece of a split ``sigmoid``."""

    op: str
    inputs: tuple[int, ...]
    shape: tuple[int, ...]
    dtype: np.dtype
    attrs: Mapping[str, Any]
    const: np.ndarray | None = None


# ---------------------------------------------------------------------------------------------
# Steps: what a plan executes, in order. Each writes values[target].


@dataclass(frozen=True)
class _UfuncStep:
    """A NumPy or generated ufunc writing into a workspace slot (or a fresh output array)."""

    ufunc: Callable[..., np.ndarray]
    arguments: tuple[int, ...]
    target: int
    slot: (
        int | None
    )  # None: a program output, a new array on every run (see ``recycle``)
    shape: tuple[int, ...]
    dtype: np.dtype
    fused: bool = False  # a generated kernel rather than a NumPy ufunc
    streamed: bool = False  # a generated kernel writing with streaming stores
    #: A large output's entry in the workspace, which keeps the array of the last run.
    recycle: int | None = None

    def buffer(self, workspace: list[np.ndarray | None]) -> np.ndarray:
        """The array this step writes: its workspace slot's, or a new one for an output
        (for a large output, the last run's array again once nothing else holds it)."""
        slot = self.slot
        if slot is None:
            keep = self.recycle
            if keep is None:
                return np.empty(self.shape, self.dtype)
            out = workspace[keep]
            # The caller's tensor, and any view or buffer export of its array, hold
            # references: only an array that the workspace alone holds is free to reuse.
            if out is None or sys.getrefcount(out) > _HELD_BY_WORKSPACE_ONLY:
                out = workspace[keep] = np.empty(self.shape, self.dtype)
            return out
        out = workspace[slot]
        if out is None:
            out = workspace[slot] = np.empty(self.shape, self.dtype)
        return out

    def execute(self, values: list[Any], workspace: list[np.ndarray | None]) -> None:
        out = self.buffer(workspace)
        # ``out`` passed positionally: the ufunc's keyword parsing is a measurable share of
        # a small array's run.
        arguments = self.arguments
        if len(arguments) == 1:
            values[self.target] = self.ufunc(values[arguments[0]], out)
        elif len(arguments) == 2:
            values[self.target] = self.ufunc(
                values[arguments[0]], values[arguments[1]], out
            )
        else:
            values[self.target] = self.ufunc(*[values[i] for i in arguments], out)


@dataclass(frozen=True)
class _KernelStep:
    """A kernel-table call (matmul, reduction, shape op, cast) returning a new array."""

    kernel: Callable[..., np.ndarray]
    arguments: tuple[int, ...]
    target: int

    def execute(self, values: list[Any], workspace: list[np.ndarray | None]) -> None:
        values[self.target] = self.kernel(*[values[i] for i in self.arguments])


#: Where a chunked step reads an argument: the whole array (it broadcasts along the chunked
#: axis) or the chunk's index into it (it has the chunked axis at full length).
_Index = tuple[slice, ...] | None


@dataclass(frozen=True)
class _ChunkedSteps:
    """Consecutive element-wise steps over one large shape, run chunk by chunk on every core
    when the pool's helpers join (else whole, one step after the other).

    The chunks split the first axis longer than 1 into ranges; each chunk runs all the steps
    on its range in turn, so the threads meet once per run of steps, not once per step.
    Chunks write disjoint ranges, and element-wise ufuncs compute each element alone, so the
    result is the single-threaded one bit for bit (ranges start at multiples of 64 elements
    so NumPy's SIMD loops group elements as they do over the whole array).
    """

    steps: tuple[_UfuncStep, ...]
    #: For each chunk, for each step: the index of its output, and of each argument.
    indices: tuple[tuple[tuple[tuple[slice, ...], tuple[_Index, ...]], ...], ...]
    #: Times this run with and without helpers and picks the faster way (shared by threads).
    policy: fusion_threads.HelperPolicy = field(
        default_factory=fusion_threads.HelperPolicy, compare=False
    )

    def execute(self, values: list[Any], workspace: list[np.ndarray | None]) -> None:
        pool = fusion_threads.pool()
        helping = pool.helpers > 0 and self.policy()
        start = time.perf_counter()
        if helping:
            self._run_chunks(pool, values, workspace)
        else:
            # Alone, chunks only cost (4M float32: 1.72 ms in chunks, 1.51 ms whole; no cache
            # gain measured): the whole-array steps compute the same bits.
            for step in self.steps:
                step.execute(values, workspace)
        if pool.helpers > 0:
            self.policy.record(helping, time.perf_counter() - start)

    def _run_chunks(
        self,
        pool: fusion_threads.ChunkPool,
        values: list[Any],
        workspace: list[np.ndarray | None],
    ) -> None:
        for step in self.steps:
            values[step.target] = step.buffer(workspace)
        steps, indices = self.steps, self.indices

        def run_chunk(chunk: int) -> None:
            for step, (out_index, argument_indices) in zip(steps, indices[chunk]):
                arguments = [
                    values[i] if index is None else values[i][index]
                    for i, index in zip(step.arguments, argument_indices)
                ]
                step.ufunc(*arguments, values[step.target][out_index])

        pool.run(run_chunk, len(indices), helping=True)


def _bind_kernel(kernels: Any, value: _Value) -> Callable[..., np.ndarray]:
    """The kernel of a value with its non-array arguments bound."""
    op, attrs = value.op, value.attrs
    kernel = getattr(kernels, op)
    if op in _REDUCTIONS:
        axis, keepdims = attrs.get("axis"), bool(attrs.get("keepdims", False))
        return lambda x: kernel(x, axis, keepdims)
    if op == "reshape":
        shape = tuple(attrs["shape"])
        return lambda x: kernel(x, shape)
    if op == "transpose":
        axes = attrs.get("axes")
        return lambda x: kernel(x, axes)
    if op == "astype":
        dtype = np.dtype(attrs["dtype"])
        return lambda x: kernel(x, dtype)
    return kernel  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------------------
# The plan.


class ProgramPlan:
    """An executable plan for one program and one set of input shapes and dtypes."""

    def __init__(
        self,
        values: list[_Value],
        inputs: tuple[tuple[int, str], ...],
        steps: tuple[_UfuncStep | _KernelStep | _ChunkedSteps, ...],
        outputs: tuple[int, ...],
        slots: tuple[tuple[tuple[int, ...], np.dtype], ...],
        recycled: int = 0,
    ) -> None:
        self._template: list[Any] = [v.const for v in values]
        self._inputs = inputs
        self.steps = steps
        self._outputs = outputs
        #: Outputs that are inputs or constants: copied so a result never aliases them.
        self._copied = frozenset(
            i for i in outputs if values[i].op in ("input", "const")
        )
        self.slots = slots
        #: Entries of a workspace: the slots, then one per recycled output.
        self._workspace_size = len(slots) + recycled
        self._executes = tuple(step.execute for step in steps)
        # Only NumPy's loops report floating-point errors; a plan of generated kernels
        # skips entering NumPy's error state (a microsecond or two per run).
        self._numpy_steps = any(
            not (isinstance(s, _UfuncStep) and s.fused) for s in self._flat_steps()
        )
        # One workspace per thread: threads running the same plan never share a buffer.
        self._workspaces = threading.local()

    @property
    def fused_kernels(self) -> int:
        """How many steps run a generated (fused) kernel."""
        return sum(
            1 for s in self._flat_steps() if isinstance(s, _UfuncStep) and s.fused
        )

    @property
    def streamed_kernels(self) -> int:
        """How many steps write their result with streaming stores."""
        return sum(
            1 for s in self._flat_steps() if isinstance(s, _UfuncStep) and s.streamed
        )

    @property
    def helper_timings(self) -> list[dict[bool, float]]:
        """For each chunked run of steps: seconds per run with helpers (True) and without
        (False), as its policy last timed them."""
        return [
            dict(s.policy.costs) for s in self.steps if isinstance(s, _ChunkedSteps)
        ]

    @property
    def chunked_steps(self) -> int:
        """How many steps run in chunks on every core."""
        return sum(len(s.steps) for s in self.steps if isinstance(s, _ChunkedSteps))

    def _flat_steps(self) -> list[_UfuncStep | _KernelStep]:
        flat: list[_UfuncStep | _KernelStep] = []
        for step in self.steps:
            flat.extend(step.steps if isinstance(step, _ChunkedSteps) else [step])
        return flat

    def run(self, arrays: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        """Execute the plan on named input arrays; returns one array per output, never one
        that a result of an earlier run still holds."""
        values = self._template.copy()
        for index, name in self._inputs:
            values[index] = arrays[name]
        workspace = getattr(self._workspaces, "buffers", None)
        if workspace is None:
            workspace = self._workspaces.buffers = [None] * self._workspace_size
        # As the reference interpreter: IEEE results (inf, nan) without warnings.
        if self._numpy_steps:
            with np.errstate(all="ignore"):
                for execute in self._executes:
                    execute(values, workspace)
        else:
            for execute in self._executes:
                execute(values, workspace)
        copied = self._copied
        return [
            values[i].copy() if i in copied else np.asarray(values[i])
            for i in self._outputs
        ]


def _lower(
    nodes: Sequence[Any], outputs: Sequence[int]
) -> tuple[list[_Value], list[int]]:
    """Program nodes -> planned values: ``sigmoid`` split, constant-only nodes folded.

    Returns the values and, for each program node, the index of the value holding its result.
    """
    values: list[_Value] = []
    where: list[int] = []

    def add(value: _Value) -> int:
        if value.op not in ("input", "const") and all(
            values[i].const is not None for i in value.inputs
        ):
            with np.errstate(all="ignore"):  # as the reference interpreter
                folded = _bind_kernel(REFERENCE, value)(
                    *[values[i].const for i in value.inputs]
                )
            value = _Value(
                "const", (), value.shape, value.dtype, {}, np.asarray(folded)
            )
        values.append(value)
        return len(values) - 1

    for node in nodes:
        inputs = tuple(where[i] for i in node.inputs)
        dtype, shape = np.dtype(node.dtype), tuple(node.shape)
        if node.op == "const":
            const = np.asarray(node.attrs["value"])
            where.append(add(_Value("const", (), const.shape, const.dtype, {}, const)))
        else:
            where.append(add(_Value(node.op, inputs, shape, dtype, dict(node.attrs))))
    return values, [where[i] for i in outputs]


def _unrolled_exponent(values: list[_Value], value: _Value) -> int | None:
    exponent = values[value.inputs[1]].const
    if exponent is None or exponent.shape != () or exponent.dtype.kind not in "iuf":
        return None
    number = float(exponent)
    if number.is_integer() and int(number) in _UNROLLED_EXPONENTS:
        return int(number)
    return None


def _fusable(values: list[_Value], value: _Value) -> bool:
    """Whether a generated kernel computes exactly what the reference kernel computes."""
    if value.op not in _FUSABLE or value.dtype not in FUSABLE_DTYPES:
        return False
    input_dtypes = [values[i].dtype for i in value.inputs]
    if any(d not in FUSABLE_DTYPES for d in input_dtypes):
        return False
    if value.op == "pow":
        # Only x ** k for small integer k, computed in x's own dtype.
        return (
            value.dtype == input_dtypes[0]
            and _unrolled_exponent(values, value) is not None
        )
    if value.dtype == np.bool_ and value.op not in (
        "add",
        "mul",
        "astype",
        *_COMPARISONS,
    ):
        return False  # NumPy rejects or specially treats these on booleans
    if value.op in TRANSCENDENTAL:
        # fusion_math's functions exist only compiled (not under NUMBA_DISABLE_JIT).
        return value.dtype.kind == "f" and fusion_threads.AVAILABLE
    if value.op in ("div", "sqrt"):
        return value.dtype.kind == "f"
    return True


def plan_program(
    nodes: Sequence[Any],
    outputs: Sequence[int],
    kernels: Any,
    *,
    chunk_threshold: int = CHUNK_THRESHOLD,
    chunk_work: int = CHUNK_WORK,
    stream_bytes: int = STREAM_BYTES,
    parallel_work: int = PARALLEL_WORK,
) -> ProgramPlan:
    """Plan a program's nodes (topologically ordered) into steps; see the module docstring.

    Runs of element-wise steps of one shape with at least ``chunk_threshold`` element-steps
    of work run in chunks of about ``chunk_work`` element-steps, on every core while cores
    are free. Fused program outputs of at least ``stream_bytes`` bytes are written with
    streaming stores where the machine has them. A fused group whose arguments all have
    its result's shape runs as a range kernel, on every thread of the team from
    ``parallel_work`` element-steps (``fusion_codegen.RangeKernel``).
    """
    values, output_values = _lower(nodes, outputs)
    count = len(values)
    consumers: list[list[int]] = [[] for _ in range(count)]
    for index, value in enumerate(values):
        for source in dict.fromkeys(value.inputs):
            consumers[source].append(index)
    is_output = [False] * count
    for index in output_values:
        is_output[index] = True
    computed = [v.op not in ("input", "const") for v in values]
    fusable = [computed[i] and _fusable(values, v) for i, v in enumerate(values)]

    # A fusable value joins its single consumer's group; roots are the values that do not.
    absorbed = [
        fusable[i]
        and not is_output[i]
        and len(consumers[i]) == 1
        and fusable[consumers[i][0]]
        for i in range(count)
    ]

    # Views (reshape, transpose) share their input's storage: track storage roots.
    storage = list(range(count))
    for index, value in enumerate(values):
        if value.op in ("reshape", "transpose"):
            storage[index] = storage[value.inputs[0]]
    # A value absorbed into a group is computed when the group's root runs: its reads happen
    # then, not at its own index (steps in between must not reuse what it reads).
    runs_at = list(range(count))
    for index in reversed(range(count)):
        if absorbed[index]:
            runs_at[index] = runs_at[consumers[index][0]]
    last_use = list(range(count))
    fresh = [False] * count
    for index, value in enumerate(values):
        for source in value.inputs:
            root = storage[source]
            last_use[root] = max(last_use[root], runs_at[index])
    for index in output_values:
        fresh[storage[index]] = True

    steps: list[_UfuncStep | _KernelStep] = []
    slots: list[tuple[tuple[int, ...], np.dtype]] = []
    slot_of: dict[int, int] = {}
    free: list[int] = []
    live: list[int] = []  # storage roots currently holding a slot

    def take_slot(index: int, generated: bool) -> int | None:
        value = values[index]
        if fresh[index]:
            return None
        # Values whose last reader is this step are dead once it has read them: a NumPy
        # ufunc may overwrite its own input, so their slots are free here. Not so for a
        # generated kernel: Numba's loop checks its pointers for aliasing and, finding the
        # output on an input, runs unvectorised (4M float32 sqrt in place: 5.5 ms, against
        # 0.72 ms into another buffer).
        dead = [
            r
            for r in live
            if last_use[r] < index or (last_use[r] == index and not generated)
        ]
        for root in dead:
            live.remove(root)
            free.append(slot_of[root])
        for position, slot in enumerate(free):
            if slots[slot] == (value.shape, value.dtype):
                del free[position]
                break
        else:
            slots.append((value.shape, value.dtype))
            slot = len(slots) - 1
        slot_of[index] = slot
        live.append(index)
        return slot

    # Only the lowered values: planning a lone relu appends its zero constant to ``values``.
    for index, value in enumerate(values[:count]):
        if not computed[index] or absorbed[index]:
            continue
        if fusable[index]:
            members = _group(values, absorbed, index)
            generated = (
                len(members) > 1
                or value.op == "sqrt"
                or value.op in TRANSCENDENTAL
                or _loop_indices(values, index, _group_arguments(values, members))
                is not None
            )
            stream = (
                generated
                and fresh[index]
                and math.prod(value.shape) * value.dtype.itemsize >= stream_bytes
                and _streams(values, members)
            )
            if generated:
                ufunc, arguments = _fused_kernel(values, members, stream, parallel_work)
            else:
                ufunc, arguments = _single_ufunc(values, value)
            slot = take_slot(index, generated)
            steps.append(
                _UfuncStep(
                    ufunc,
                    arguments,
                    index,
                    slot,
                    value.shape,
                    value.dtype,
                    generated,
                    streamed=stream,
                )
            )
        elif value.op in _UFUNCS:
            ufunc, arguments = _single_ufunc(values, value)
            slot = take_slot(index, generated=False)
            steps.append(
                _UfuncStep(ufunc, arguments, index, slot, value.shape, value.dtype)
            )
        else:
            steps.append(_KernelStep(_bind_kernel(kernels, value), value.inputs, index))

    # Large outputs keep their last array in workspace entries after the slots.
    recycled = 0
    for position, step in enumerate(steps):
        if (
            isinstance(step, _UfuncStep)
            and step.slot is None
            and math.prod(step.shape) * step.dtype.itemsize >= RECYCLE_BYTES
        ):
            steps[position] = replace(step, recycle=len(slots) + recycled)
            recycled += 1

    # A view of a workspace buffer may overlap what a chunk writes elsewhere in that buffer
    # (x.T read while x's slot is overwritten): steps reading one run whole, where NumPy's
    # overlap check copies as needed.
    reads_workspace_view = [
        any(
            i < count and storage[i] != i and storage[i] in slot_of
            for i in step.arguments
        )
        for step in steps
    ]
    planned = _chunk_large_steps(
        values, steps, reads_workspace_view, chunk_threshold, chunk_work
    )
    inputs = tuple(
        (i, v.attrs["name"]) for i, v in enumerate(values) if v.op == "input"
    )
    return ProgramPlan(
        values, inputs, planned, tuple(output_values), tuple(slots), recycled
    )


def _chunk_large_steps(
    values: list[_Value],
    steps: list[_UfuncStep | _KernelStep],
    excluded: list[bool],
    threshold: int,
    chunk_work: int,
) -> tuple[_UfuncStep | _KernelStep | _ChunkedSteps, ...]:
    """Runs of consecutive element-wise steps of one shape with at least ``threshold``
    element-steps of work become ``_ChunkedSteps``."""
    planned: list[_UfuncStep | _KernelStep | _ChunkedSteps] = []
    run: list[_UfuncStep] = []

    def close_run() -> None:
        indices = None
        work = math.prod(run[0].shape) * len(run) if run else 0
        # Memory-bound runs (generated arithmetic) are chunked too: measured on an idle 2-core
        # machine, the 4M float32 8-op chain ran in 1.0 ms on two cores against 1.4-1.6 ms on
        # one; on a loaded one a helper lost. The run's policy times both ways and keeps the
        # faster.
        if work >= threshold:
            indices = _chunk_indices(values, run, max(2, -(-work // chunk_work)))
        planned.extend(run if indices is None else [_ChunkedSteps(tuple(run), indices)])
        run.clear()

    for step, skip in zip(steps, excluded):
        # A range kernel shares its chunks among the team's threads itself.
        if (
            not isinstance(step, _UfuncStep)
            or skip
            or isinstance(step.ufunc, RangeKernel)
        ):
            close_run()
            planned.append(step)
            continue
        if run and run[0].shape != step.shape:
            close_run()
        run.append(step)
    close_run()
    return tuple(planned)


#: Chunks start at multiples of this many elements: NumPy's SIMD loops (up to 64 bytes of
#: float32 per vector, unrolled) then group a chunk's elements as they group the whole array's.
_CHUNK_ALIGNMENT = 64


def _chunk_indices(
    values: list[_Value], run: list[_UfuncStep], count: int
) -> tuple[tuple[tuple[tuple[slice, ...], tuple[_Index, ...]], ...], ...] | None:
    """The output and argument indices of each of about ``count`` even chunks of a run of
    steps, or None when the shape does not split."""
    shape = run[0].shape
    axis = next((a for a, extent in enumerate(shape) if extent > 1), None)
    if axis is None:
        return None
    length, inner = shape[axis], math.prod(shape[axis + 1 :])
    step_rows = _CHUNK_ALIGNMENT // math.gcd(_CHUNK_ALIGNMENT, inner)
    rows = -(-length // count)
    rows = -(-rows // step_rows) * step_rows
    if rows >= length:
        return None
    chunks = []
    for start in range(0, length, rows):
        window = slice(start, min(start + rows, length))
        per_step = []
        for step in run:
            argument_indices = []
            for i in step.arguments:
                argument_shape = values[i].shape
                position = axis - (len(shape) - len(argument_shape))
                if position >= 0 and argument_shape[position] == length:
                    argument_indices.append((slice(None),) * position + (window,))
                else:
                    argument_indices.append(None)  # broadcast along the chunked axis
            per_step.append(
                ((slice(None),) * axis + (window,), tuple(argument_indices))
            )
        chunks.append(tuple(per_step))
    return tuple(chunks)


def _group(values: list[_Value], absorbed: list[bool], root: int) -> list[int]:
    """The values of root's fused group, in topological (index) order."""
    members, pending = set(), [root]
    while pending:
        index = pending.pop()
        members.add(index)
        pending.extend(
            i for i in values[index].inputs if absorbed[i] and i not in members
        )
    return sorted(members)


def _single_ufunc(
    values: list[_Value], value: _Value
) -> tuple[Callable[..., Any], tuple[int, ...]]:
    """A lone element-wise value as its NumPy ufunc (relu as ``maximum(x, 0)``)."""
    if value.op == "relu":
        zero = len(values)
        values.append(
            _Value("const", (), (), value.dtype, {}, np.zeros((), value.dtype))
        )
        return _relu_into, (value.inputs[0], zero)
    if value.op == "astype":
        return _cast_into, value.inputs
    return _UFUNCS[value.op], value.inputs


def _relu_into(x: np.ndarray, zero: np.ndarray, out: np.ndarray) -> np.ndarray:
    # np.maximum deprecates a positional ``out``.
    return np.maximum(x, zero, out=out)


def _cast_into(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    np.copyto(out, x, casting="unsafe")
    return out


def _inlined(values: list[_Value], source: int) -> bool:
    """Whether a generated kernel writes this value as a literal (a 0-d constant)."""
    const = values[source].const
    return const is not None and const.shape == () and const.dtype in FUSABLE_DTYPES


def _group_arguments(values: list[_Value], members: list[int]) -> tuple[int, ...]:
    """The values a group's kernel takes as arguments, in the order it takes them."""
    inside = set(members)
    arguments: dict[int, None] = {}
    for index in members:
        for source in values[index].inputs:
            if source not in inside and not _inlined(values, source):
                arguments.setdefault(source)
    return tuple(arguments)


def _loop_indices(
    values: list[_Value], root: int, arguments: tuple[int, ...]
) -> tuple[str, ...] | None:
    """How a loop kernel reads each argument (see ``loop_kernel_source``), when the group
    writes a 2-d result and some argument is broadcast along its rows or columns; else None
    (a ufunc kernel, whose inner loop then runs over whole rows or the whole array)."""
    shape = values[root].shape
    if len(shape) != 2 or 0 in shape:
        return None
    rows, cols = shape
    indices = []
    for argument in arguments:
        own = values[argument].shape
        if len(own) == 1:
            indices.append("j" if own[0] == cols else "0")
        elif len(own) == 2:
            row = "i" if own[0] == rows else "0"
            indices.append(f"{row}, {'j' if own[1] == cols else '0'}")
        else:
            return None
    if all(values[a].shape == shape for a in arguments):
        return None
    return tuple(indices)


def _ranged(values: list[_Value], members: list[int]) -> bool:
    """Whether a group runs as a range kernel (``fusion_codegen.RangeKernel``): every
    argument of the result's shape (no broadcasting), where kernels are compiled."""
    result = values[members[-1]]
    if not result.shape or not fusion_threads.AVAILABLE:
        return False
    return all(
        values[a].shape == result.shape for a in _group_arguments(values, members)
    )


def _streams(values: list[_Value], members: list[int]) -> bool:
    """Whether a group's result can be written with streaming stores: floating-point, a
    range kernel, on a machine that streams."""
    from dispatch_lint.runtime.fusion_stream import AVAILABLE

    result = values[members[-1]]
    return AVAILABLE and result.dtype.kind == "f" and _ranged(values, members)


def _fused_kernel(
    values: list[_Value],
    members: list[int],
    stream: bool = False,
    parallel_work: int = PARALLEL_WORK,
) -> tuple[Callable[..., np.ndarray], tuple[int, ...]]:
    """Generate (or reuse) the kernel of a group; returns it with its argument values.
    ``stream``: the result is written with streaming stores (see :func:`_streams`)."""
    position = {index: n for n, index in enumerate(members)}
    arguments = {
        source: n for n, source in enumerate(_group_arguments(values, members))
    }
    terms = []
    for index in members:
        value = values[index]
        refs: list[tuple[str, object]] = []
        for source in value.inputs:
            if source in position:
                refs.append(("t", position[source]))
            elif _inlined(values, source):
                refs.append(("c", literal(values[source].const)))  # type: ignore[arg-type]
            else:
                refs.append(("a", arguments[source]))
        exponent = _unrolled_exponent(values, value) if value.op == "pow" else None
        if exponent is not None:
            refs = refs[:1]
        terms.append(
            FusedTerm(
                value.op,
                tuple(refs),
                tuple(values[i].dtype for i in value.inputs),
                value.dtype,
                exponent,
            )
        )
    dtypes = tuple(values[i].dtype for i in arguments)
    terms_ = tuple(terms)
    fallback = kernel_source(terms_, dtypes)
    if _ranged(values, members):
        source = range_kernel_source(terms_, dtypes, stream)
        kernel = RangeKernel(source, fallback, work(terms_), parallel_work)
        return kernel, tuple(arguments)
    loop = _loop_indices(values, members[-1], tuple(arguments))
    if loop is not None:
        fallback = loop_kernel_source(terms_, loop)
    return compiled_kernel(fallback), tuple(arguments)


# ---------------------------------------------------------------------------------------------
# The plan cache: one plan per (program, input shapes and dtypes), kept in ``program.cache``.


@dataclass(frozen=True)
class FusionStats:
    """Counters (never timings) that show plans and kernels being reused."""

    plans_built: int
    plans_reused: int
    kernels_compiled: int
    kernels_reused: int


@dataclass
class _PlanCounters:
    built: int = 0
    reused: int = 0


_plan_counters = _PlanCounters()
# Guards inserting into a program's plan table (``program.cache["fusion.plans"]``).
_plans_lock = threading.Lock()


def _plan_for(program: Any, signature: tuple[Any, ...], kernels: Any) -> ProgramPlan:
    plans = program.cache.get("fusion.plans")
    plan = plans.get(signature) if plans is not None else None
    if plan is not None:
        # Counters are diagnostics: a lost increment under threads is harmless, a lock on
        # every run is not free.
        _plan_counters.reused += 1
        return plan
    # Planning may compile kernels (a second or so each): done outside the lock, with the
    # kernel cache's own lock compiling each kernel once. Two threads racing to plan the same
    # program build equal plans; the first one stored wins.
    plan = plan_program(program.nodes, program.outputs, kernels)
    with _plans_lock:
        plans = program.cache.setdefault("fusion.plans", {})
        stored = plans.setdefault(signature, plan)
        if stored is plan:
            _plan_counters.built += 1
        else:
            _plan_counters.reused += 1
        return stored


def stats() -> FusionStats:
    """How many plans were built and reused, and kernels compiled and reused, so far."""
    return FusionStats(
        _plan_counters.built,
        _plan_counters.reused,
        kernel_counters.compiled,
        kernel_counters.reused,
    )


def run_planned(
    program: Any, arrays: Mapping[str, np.ndarray], kernels: Any
) -> list[np.ndarray]:
    """Run a captured program through its cached plan (built on first use).

    ``program`` is a ``capture.Program`` (its ``cache`` dict holds the plans); ``arrays`` maps
    each input name to an array of the recorded shape and dtype.
    """
    signature = tuple(
        [(name, arrays[name].shape, arrays[name].dtype) for name in sorted(arrays)]
    )
    return _plan_for(program, signature, kernels).run(arrays)


def run_conformed(
    program: Any, arrays: Mapping[str, np.ndarray], kernels: Any
) -> list[np.ndarray]:
    """``run_planned`` for arrays of exactly the shapes and dtypes of the program's
    placeholders (as ``Program.run`` checks them): the plan for those is kept apart, so
    a run skips computing its signature."""
    plan = program.cache.get("fusion.plan")
    if plan is None:
        signature = tuple(
            [(name, arrays[name].shape, arrays[name].dtype) for name in sorted(arrays)]
        )
        plan = program.cache["fusion.plan"] = _plan_for(program, signature, kernels)
    else:
        _plan_counters.reused += 1
    return plan.run(arrays)
