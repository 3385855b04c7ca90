"""Running the chunks of fused-replay steps on every core.

Two mechanisms, for two kinds of step:

- ``Team``, for generated kernels (``fusion_codegen.RangeKernel``): the caller and the
  helpers call the same compiled kernel, which claims chunks of the output from an atomic
  counter and computes them without the GIL; no Python runs per chunk. A helper that has
  just run a task waits for the next one spinning in compiled code (``SPIN_SECONDS``)
  rather than asleep: a sleeping thread that is woken is often placed on the waker's own
  core by the scheduler, and then waits until the caller's kernel has finished, so it
  never runs beside it. That, measured here (4M float32, 8-op chain, half the array posted
  to a helper woken per run), was why a helper made memory-bound runs slower: it started
  0.2-1.1 ms after the caller and the run took 2.4 ms against 2.1 ms alone; with the
  helper pinned to the other core it started after 0.05 ms and the run took 1.3 ms (two
  cores draw more memory bandwidth than one). A spinning helper sees a posted task at its
  next poll, on the core it is on. Chunks are claimed, not assigned, so a helper that is
  late, asleep or busy elsewhere costs nothing but the post; but one descheduled while it
  computes a chunk, or holds the GIL, keeps the caller waiting, so on a machine busy with
  other processes the team loses (measured: the 8-op chain of 1e5 float32 took 0.58 ms on
  the team against 0.04 ms alone, with 8 other busy processes on 2 cores). Whether the
  team joins is therefore timed per kernel (``HelperPolicy``, as for the ChunkPool).
- ``ChunkPool`` and ``HelperPolicy``, for runs of NumPy ufunc steps that are not generated
  (a general ``pow``): those release the GIL in their inner loops, so threads calling them
  on disjoint slices run in parallel, but each chunk costs Python, and whether that pays is
  timed per workload.

The calling thread always works too: it claims chunks from the same counter as the helpers and
only waits for chunks a helper has already started. So a run never waits for a helper that is
busy, not yet awake, or gone (a forked child has none): on a loaded machine it degrades to the
single-threaded run plus the cost of posting the work, and several threads calling ``run`` at
once cannot deadlock (helpers never wait for anything; each caller finishes its own task).

Whether helpers join a workload is timed, not assumed (``HelperPolicy``): a helper pays where
a core is free, and on cores busy with other processes it time-slices against them, and one
descheduled while holding the GIL or a claimed chunk stalls the caller. Measured here on 2
cores shared with other work (4M float32, medians): at a load average of about 2,
tanh-exp-sqrt-log took 3.8 ms with a helper and 6.3 ms alone; at about 3, 14.8 ms with a
helper and 14.3 ms alone.

Helpers are daemon threads created on first use: ``threads() - 1`` of them, since the caller
is the remaining worker. ``DISPATCH_LINT_THREADS`` sets ``threads()`` when the pool starts
(1: no helpers); the default is the number of cores this process may run on.
"""

from __future__ import annotations

import itertools
import os
import platform
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core import config as numba_config
from numba.extending import intrinsic

__all__ = [
    "AVAILABLE",
    "SPIN_SECONDS",
    "ChunkPool",
    "HelperPolicy",
    "Team",
    "fetch_add",
    "load",
    "pool",
    "spin_pause",
    "team",
    "threads",
]


def threads() -> int:
    """How many threads (the caller included) run the chunks of one step."""
    configured = os.environ.get("DISPATCH_LINT_THREADS", "").strip()
    if configured:
        try:
            return max(1, int(configured))
        except ValueError:
            raise ValueError(
                f"DISPATCH_LINT_THREADS must be a positive integer, got {configured!r}"
            ) from None
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class _Task:
    """One call of ``ChunkPool.run``: ``work(0) .. work(chunks - 1)``, each run exactly once."""

    __slots__ = ("_claims", "_lock", "_pending", "chunks", "done", "error", "work")

    def __init__(self, work: Callable[[int], None], chunks: int) -> None:
        self.work: Callable[[int], None] | None = work
        self.chunks = chunks
        # next() on itertools.count is atomic under the GIL: a lock-free claim.
        self._claims = itertools.count()
        self._pending = chunks
        self._lock = threading.Lock()
        self.done = threading.Event()
        self.error: BaseException | None = None

    def help(self) -> None:
        """Run unclaimed chunks until none is left."""
        chunks, work = self.chunks, self.work
        if work is None:  # finished before this helper woke
            return
        while True:
            chunk = next(self._claims)
            if chunk >= chunks:
                return
            try:
                if self.error is None:
                    work(chunk)
            except BaseException as error:  # re-raised by the caller  # noqa: BLE001
                self.error = error
            finally:
                with self._lock:
                    self._pending -= 1
                    if self._pending == 0:
                        self.work = None  # a stale copy in the queue holds no arrays
                        self.done.set()


class HelperPolicy:
    """Whether helpers join the runs of one workload, chosen by timing it both ways.

    Each chunked run reports its seconds and whether helpers joined; the very first run is
    not counted (it starts the helpers and touches fresh buffers). Runs are taken in
    windows of ``window`` runs, all one way; a window's median updates that way's figure
    (averaged with the previous one, so one noisy window decides less). The next window
    runs the faster way, except that the slower way is timed again after ``explore_every``
    windows without it, since the first figures may be unlucky and the machine's load
    changes; each retry that loses again doubles that wait (up to ``max_wait`` windows),
    as a retry of helpers on a busy machine can stall. One policy per workload (a plan's
    chunked run of steps), so both ways time the same work.
    """

    # Windows of 3: a median that one outlier does not move, and only 7 runs to time both
    # ways at first. The first retries come soon (a first window that met a busy core would
    # otherwise decide for 30 runs: measured), then back off to one retry in 64 windows,
    # which costs a few percent at most.
    def __init__(
        self, window: int = 3, explore_every: int = 1, max_wait: int = 64
    ) -> None:
        self.window = window
        self.explore_every = explore_every
        self.max_wait = max_wait
        self._lock = threading.Lock()
        self._started = False  # the first run was seen (and not counted)
        self.joining = True  # the way of the current window
        self._samples: list[float] = []
        #: way -> seconds per run (averaged over windows)
        self.costs: dict[bool, float] = {}
        self._waited = 0  # windows since the slower way was last timed
        self._wait = explore_every
        self._retrying = False  # the current window retries the slower way

    def __call__(self) -> bool:
        """Whether helpers join the run starting now."""
        return self.joining

    def record(self, joined: bool, seconds: float) -> None:
        """Account one run that took ``seconds``."""
        with self._lock:
            if not self._started:
                self._started = True
                return
            if joined != self.joining:
                return  # started before the last switch
            self._samples.append(seconds)
            if len(self._samples) >= self.window:
                self._close_window()

    def _close_window(self) -> None:
        samples = sorted(self._samples)
        middle = len(samples) // 2
        median = (samples[middle] + samples[~middle]) / 2
        way, other = self.joining, not self.joining
        previous = self.costs.get(way)
        self.costs[way] = median if previous is None else (median + previous) / 2
        self._samples = []
        if other not in self.costs:
            self.joining = other  # time both ways first
            return
        faster = min(self.costs, key=self.costs.__getitem__)
        if self._retrying:
            lost = faster != way
            self._wait = (
                min(self._wait * 2, self.max_wait) if lost else self.explore_every
            )
            self._retrying, self._waited = False, 0
        else:
            self._waited += 1
        if faster == way and self._waited >= self._wait:
            self.joining, self._retrying = other, True
        else:
            self.joining = faster


class ChunkPool:
    """Helper threads that join the caller in running a task's chunks."""

    def __init__(self, helpers: int) -> None:
        self.helpers = helpers
        self._tasks: queue.SimpleQueue[_Task | None] = queue.SimpleQueue()
        self._threads = [
            threading.Thread(
                target=self._serve, name=f"dispatch-lint-fusion-{number}", daemon=True
            )
            for number in range(helpers)
        ]
        for thread in self._threads:
            thread.start()

    def _serve(self) -> None:
        # The plan runs under errstate(all="ignore") (IEEE results, no warnings, as the
        # reference interpreter); NumPy's error state is per thread, so helpers set it too.
        with np.errstate(all="ignore"):
            while (task := self._tasks.get()) is not None:
                task.help()
                # Not held while waiting for the next task: the finished task's work holds
                # the caller's arrays, and an array kept alive keeps its memory from being
                # reused (a fresh 16 MB output then costs page faults and zeroing).
                del task

    def run(
        self, work: Callable[[int], None], chunks: int, helping: bool = True
    ) -> None:
        """Call ``work(i)`` for every ``i < chunks``, spread over the caller and (when
        ``helping``) the helpers; returns when all are done and re-raises the first
        exception one of them raised."""
        task = _Task(work, chunks)
        if helping:
            # A helper that wakes after the caller finished finds nothing left to claim.
            for _ in range(min(self.helpers, chunks - 1)):
                self._tasks.put(task)
        task.help()
        task.done.wait()
        if task.error is not None:
            raise task.error

    def close(self) -> None:
        """Stop the helpers once they are done with the tasks already posted."""
        for _ in range(self.helpers):
            self._tasks.put(None)


_pool: ChunkPool | None = None
_pool_lock = threading.Lock()


def pool() -> ChunkPool:
    """The process's pool, started on first use with ``threads() - 1`` helpers."""
    global _pool
    current = _pool
    if current is None:
        with _pool_lock:
            current = _pool
            if current is None:
                current = _pool = ChunkPool(threads() - 1)
    return current


def _forget_pool_in_child() -> None:
    # A forked child inherits the pool object but none of its threads.
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_in_child)


# ---------------------------------------------------------------------------------------------
# Atomics for compiled kernels, and the team of helpers that calls them.

#: Whether compiled kernels can share chunks across threads (not as Python under
#: ``NUMBA_DISABLE_JIT``, where these intrinsics do not exist).
AVAILABLE = not numba_config.DISABLE_JIT
#: How long a helper that has run a task spins for the next one before it sleeps. Spinning
#: burns its core meanwhile, so it is short: replays that follow each other within it find
#: the helper awake.
SPIN_SECONDS = 5e-4
_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")


def _element_pointer(context, builder, array_type, array, index_type, index):  # type: ignore[no-untyped-def]
    data = context.make_array(array_type)(context, builder, array).data
    position = context.cast(builder, index, index_type, types.intp)
    return builder.gep(data, [position])


def _is_counter(array, index) -> bool:  # type: ignore[no-untyped-def]
    return (
        isinstance(array, types.Array)
        and array.dtype == types.int64
        and array.ndim == 1
        and isinstance(index, types.Integer)
    )


@intrinsic
def fetch_add(typingctx, array, index, value):  # type: ignore[no-untyped-def]
    """Atomically ``array[index] += value`` (int64 array); returns the value before."""
    if not (_is_counter(array, index) and isinstance(value, types.Integer)):
        return None

    def codegen(context, builder, signature, arguments):  # type: ignore[no-untyped-def]
        pointer = _element_pointer(
            context,
            builder,
            signature.args[0],
            arguments[0],
            signature.args[1],
            arguments[1],
        )
        amount = context.cast(builder, arguments[2], signature.args[2], types.int64)
        return builder.atomic_rmw("add", pointer, amount, "seq_cst")

    return types.int64(array, index, value), codegen


@intrinsic
def load(typingctx, array, index):  # type: ignore[no-untyped-def]
    """``array[index]`` (int64 array) as an atomic acquire load: a loop polling it sees
    other threads' stores (a plain load could be hoisted out of the loop)."""
    if not _is_counter(array, index):
        return None

    def codegen(context, builder, signature, arguments):  # type: ignore[no-untyped-def]
        pointer = _element_pointer(
            context,
            builder,
            signature.args[0],
            arguments[0],
            signature.args[1],
            arguments[1],
        )
        return builder.load_atomic(pointer, "acquire", 8)

    return types.int64(array, index), codegen


@intrinsic
def spin_pause(typingctx):  # type: ignore[no-untyped-def]
    """The CPU's spin-wait hint (x86 ``pause``), between polls of a busy-wait loop."""

    def codegen(context, builder, signature, arguments):  # type: ignore[no-untyped-def]
        if _X86:
            pause = cgutils.get_or_insert_function(
                builder.module,
                ir.FunctionType(ir.VoidType(), []),
                "llvm.x86.sse2.pause",
            )
            builder.call(pause, [])
        return context.get_dummy_value()

    return types.void(), codegen


@numba.njit(nogil=True, cache=True)
def _spin_while_equal(flags, index, seen, spins):  # type: ignore[no-untyped-def]
    """Poll ``flags[index]`` up to ``spins`` times while it equals ``seen``; its last value."""
    for _ in range(spins):
        value = load(flags, index)
        if value != seen:
            return value
        spin_pause()
    return load(flags, index)


class Team:
    """Helper threads that join the caller in running compiled kernels that share out
    their own chunks (see the module docstring).

    ``run(kernel, arguments, finished)`` posts ``kernel(*arguments, False)`` to the helpers
    and calls ``kernel(*arguments, True)`` itself; the kernel claims chunks from a counter
    among its arguments, and the caller's call returns once every chunk is done, with how
    long it waited for them (or -1, after a bounded spin: then ``run`` sleeps in short
    steps until ``finished()`` says so).
    """

    def __init__(self, helpers: int, spin_seconds: float = SPIN_SECONDS) -> None:
        self.helpers = helpers if AVAILABLE else 0
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._task: tuple[Callable[..., Any], tuple[Any, ...]] | None = None
        self._posted = 0
        self._sleeping = 0
        self._closed = False
        # The posted count, where spinning helpers poll it without the GIL; alone on its
        # cache line, so that no other write makes their polls miss.
        self._mailbox = np.zeros(16, np.int64)
        #: Polls of about ``spin_seconds``: how long a thread waits spinning.
        self.spins = 0
        if self.helpers:
            self.spins = self._calibrate(spin_seconds)
        self._threads = [
            threading.Thread(
                target=self._serve, name=f"dispatch-lint-team-{number}", daemon=True
            )
            for number in range(self.helpers)
        ]
        for thread in self._threads:
            thread.start()

    def _calibrate(self, seconds: float) -> int:
        # A pause takes from a few to over a hundred cycles, by CPU: count them in time.
        # The fastest of a few probes, as one may be descheduled on a busy machine.
        probe = 1 << 12
        _spin_while_equal(self._mailbox, 8, 0, 1)  # compile (or load) first
        elapsed = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            _spin_while_equal(self._mailbox, 8, 0, probe)
            elapsed = min(elapsed, time.perf_counter() - start)
        return max(1, int(probe * seconds / max(elapsed, 1e-9)))

    def _serve(self) -> None:
        seen = 0
        while True:
            posted = _spin_while_equal(self._mailbox, 0, seen, self.spins)
            if posted == seen:
                with self._wake:
                    while self._posted == seen and not self._closed:
                        self._sleeping += 1
                        self._wake.wait()
                        self._sleeping -= 1
                    if self._closed:
                        return
            with self._lock:
                if self._closed:
                    return
                seen, task = self._posted, self._task
            if task is not None:
                kernel, arguments = task
                kernel(*arguments, False)
                # Not held while waiting: the task's arrays would stay alive.
                del task, kernel, arguments

    def run(
        self,
        kernel: Callable[..., int],
        arguments: tuple[Any, ...],
        finished: Callable[[], bool],
    ) -> None:
        """Run a chunk-claiming kernel on the caller and every helper, and wait until all
        of its chunks are done."""
        with self._lock:
            self._task = (kernel, arguments)
            self._posted += 1
            self._mailbox[0] = self._posted
            if self._sleeping:
                self._wake.notify_all()
        if kernel(*arguments, True) < 0:
            while not finished():
                time.sleep(20e-6)
        with self._lock:
            if self._task is not None and self._task[1] is arguments:
                self._task = None  # a helper waking late finds nothing to do

    def close(self) -> None:
        """Stop the helpers."""
        with self._wake:
            self._closed = True
            self._posted += 1
            self._mailbox[0] = self._posted
            self._wake.notify_all()


_team: Team | None = None


def team() -> Team:
    """The process's team, started on first use with ``threads() - 1`` helpers."""
    global _team
    current = _team
    if current is None:
        with _pool_lock:
            current = _team
            if current is None:
                current = _team = Team(threads() - 1)
    return current


def _forget_team_in_child() -> None:
    global _team
    _team = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_team_in_child)
