"""A small persistent thread pool that runs the chunks of fused-replay steps on every core.

NumPy's ufuncs and the generated Numba ufuncs release the GIL in their inner loops, so threads
calling them on disjoint slices of one buffer run truly in parallel.

The calling thread always works too: it claims chunks from the same counter as the helpers and
only waits for chunks a helper has already started. So a run never waits for a helper that is
busy, not yet awake, or gone (a forked child has none): on a loaded machine it degrades to the
single-threaded run plus the cost of posting the work, and several threads calling ``run`` at
once cannot deadlock (helpers never wait for anything; each caller finishes its own task).

Whether helpers join is measured, not assumed (``HelperPolicy``): a helper pays where a core
is free, and on cores busy with other processes it time-slices against them, and one
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
import time
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
    """Whether helpers join, chosen by the throughput measured both ways.

    Callers report each chunked run: its work (element-steps), its seconds, and whether
    helpers joined. Time is cut into windows of ``window`` seconds; each window runs one way
    and its seconds per unit of work update that way's figure. The next window runs the
    cheaper way, except that a way not measured for ``explore_after`` seconds is tried
    again, since the machine's load changes. Costs a clock read and a lock per run.
    """

    def __init__(
        self,
        window: float = 0.25,
        explore_after: float = 2.0,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.window = window
        self.explore_after = explore_after
        self._clock = clock
        self._lock = threading.Lock()
        self.joining = True  # the way of the current window
        self._window_start = clock()
        self._work = 0.0
        self._seconds = 0.0
        #: way -> (seconds per unit of work, when measured)
        self.costs: dict[bool, tuple[float, float]] = {}

    def record(self, joined: bool, work: float, seconds: float) -> None:
        """Account one chunked run of ``work`` element-steps that took ``seconds``."""
        with self._lock:
            if joined == self.joining:  # a run straddling a switch counts for neither
                self._work += work
                self._seconds += seconds

    def __call__(self) -> bool:
        """Whether helpers join the run starting now."""
        now = self._clock()
        if now - self._window_start >= self.window:
            with self._lock:
                if now - self._window_start >= self.window:
                    self._close_window(now)
        return self.joining

    def _close_window(self, now: float) -> None:
        if self._work > 0:
            cost = self._seconds / self._work
            previous = self.costs.get(self.joining)
            if previous is not None:
                # Averaged with the way's previous figure: one noisy window decides less.
                cost = (cost + previous[0]) / 2
            self.costs[self.joining] = (cost, now)
        other = not self.joining
        measured = self.costs.get(other)
        if measured is None or now - measured[1] >= self.explore_after:
            if self._work > 0:  # explore only after this way was measured in turn
                self.joining = other
        elif self.joining in self.costs:
            self.joining = min(self.costs, key=lambda way: self.costs[way][0])
        self._window_start, self._work, self._seconds = now, 0.0, 0.0


class ChunkPool:
    """Helper threads that join the caller in running a task's chunks."""

    def __init__(self, helpers: int, policy: Callable[[], bool] | None = None) -> None:
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
        self.policy = policy if policy is not None else HelperPolicy()

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

    def helping(self) -> bool:
        """Whether helpers join the tasks run now (there are some, and the policy says so)."""
        return self.helpers > 0 and self.policy()

    def record(self, joined: bool, work: float, seconds: float) -> None:
        """Report a chunked run to the policy (when it is a ``HelperPolicy``)."""
        if isinstance(self.policy, HelperPolicy):
            self.policy.record(joined, work, seconds)

    def run(
        self, work: Callable[[int], None], chunks: int, helping: bool | None = None
    ) -> None:
        """Call ``work(i)`` for every ``i < chunks``, spread over the caller and the helpers
        when ``helping`` (default: ``helping()``); returns when all are done and re-raises
        the first exception one of them raised."""
        task = _Task(work, chunks)
        if helping is None:
            helping = self.helping()
        if helping and self.helpers > 0:
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
