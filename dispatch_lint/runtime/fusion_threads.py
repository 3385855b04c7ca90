"""A small persistent thread pool that runs the chunks of fused-replay steps on every core.

NumPy's ufuncs and the generated Numba ufuncs release the GIL in their inner loops, so threads
calling them on disjoint slices of one buffer run truly in parallel.

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
import queue
import threading
from collections.abc import Callable

import numpy as np

__all__ = ["ChunkPool", "HelperPolicy", "pool", "threads"]


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
