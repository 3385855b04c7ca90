"""A small persistent thread pool that runs the chunks of one fused-replay step on every core.

NumPy's ufuncs and the generated Numba ufuncs release the GIL in their inner loops, so threads
calling them on disjoint slices of one buffer run truly in parallel.

The calling thread always works too: it claims chunks from the same counter as the helpers and
only waits for chunks a helper has already started. So a run never waits for a helper that is
busy, not yet awake, or gone (a forked child has none): on a loaded machine it degrades to the
single-threaded run plus the cost of posting the work, and several threads calling ``run`` at
once cannot deadlock (helpers never wait for anything; each caller finishes its own task).

Helpers join only while the machine has a core to spare (``SpareCores``): on a machine whose
cores are all busy with other processes, a helper time-slices against them, and a helper
descheduled while holding the GIL or a claimed chunk stalls the caller. Measured on 2 cores
busy with other work, an 8-op fused chain over 4M float32 took 4.3 to 5.4 ms (median) with a
helper and 1.9 to 2.1 ms with the caller alone; tanh-exp-sqrt-log gained nothing.

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

__all__ = ["ChunkPool", "SpareCores", "pool", "spare_cores", "threads"]


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


def spare_cores(
    idle_before: float, idle_after: float, helpers_cpu: float, elapsed: float
) -> float:
    """How many cores the helpers could have had over ``elapsed`` seconds: the machine's
    idle core-seconds plus the CPU seconds the helpers used themselves, per second."""
    if elapsed <= 0:
        return 0.0
    return (idle_after - idle_before + helpers_cpu) / elapsed


class SpareCores:
    """Whether helpers should join: at least ``needed`` cores were free for them over the last
    window (Linux ``/proc/stat``; elsewhere always yes). The cores the calling threads use do
    not count: two threads running replays on 2 cores leave no room for a helper.
    Re-measured at most once per ``window`` seconds, on a call, so it costs one clock read
    per call in between; before the first window, guessed from the load average."""

    def __init__(
        self,
        needed: float,
        helpers_cpu: Callable[[], float] = lambda: 0.0,
        window: float = 0.25,
    ) -> None:
        self.needed = needed
        self.window = window
        self._helpers_cpu = helpers_cpu
        self._ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        self._lock = threading.Lock()
        self._last = self._sample()
        self.available = self._last[1] is None or self._guess()

    def _guess(self) -> bool:
        # The load average counts the threads that want a core, this process's caller too.
        try:
            waiting = os.getloadavg()[0]
        except OSError:
            return True
        return threads() - waiting >= self.needed

    def _idle_seconds(self) -> float | None:
        try:
            with open("/proc/stat", "rb") as stat:
                fields = stat.readline().split()
        except OSError:
            return None
        # "cpu user nice system idle iowait ...": idle and iowait, in clock ticks.
        return (int(fields[4]) + int(fields[5])) / self._ticks

    def _sample(self) -> tuple[float, float | None, float]:
        return time.monotonic(), self._idle_seconds(), self._helpers_cpu()

    def __call__(self) -> bool:
        if time.monotonic() - self._last[0] >= self.window and self._lock.acquire(
            blocking=False
        ):
            try:
                before, now = self._last, self._sample()
                if before[1] is not None and now[1] is not None:
                    spare = spare_cores(
                        before[1], now[1], now[2] - before[2], now[0] - before[0]
                    )
                    self.available = spare >= self.needed
                self._last = now
            finally:
                self._lock.release()
        return self.available


def _cpu_seconds(thread: threading.Thread) -> float:
    """The CPU time a live thread has used so far (0 where the platform cannot tell)."""
    try:
        clock = time.pthread_getcpuclockid(thread.ident)  # type: ignore[arg-type]
        return time.clock_gettime(clock)
    except (AttributeError, OSError, TypeError):
        return 0.0


class ChunkPool:
    """Helper threads that join the caller in running a task's chunks."""

    def __init__(self, helpers: int, spare: Callable[[], bool] | None = None) -> None:
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
        # Each helper needs a core; half a core of slack, as /proc/stat counts 10 ms ticks.
        self._spare = (
            spare
            if spare is not None
            else SpareCores(helpers - 0.5, self._helpers_cpu_seconds)
        )

    def _helpers_cpu_seconds(self) -> float:
        # A stopped thread's clock is gone (close()): only live helpers are asked.
        return sum(_cpu_seconds(t) for t in self._threads if t.is_alive())

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
        """Whether helpers join the tasks run now (there are some, and cores to spare)."""
        return self.helpers > 0 and self._spare()

    def run(self, work: Callable[[int], None], chunks: int) -> None:
        """Call ``work(i)`` for every ``i < chunks``, spread over the caller and the helpers;
        returns when all are done and re-raises the first exception one of them raised."""
        task = _Task(work, chunks)
        if self.helping():
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
