"""A small persistent thread pool that runs the chunks of one fused-replay step on every core.

NumPy's ufuncs and the generated Numba ufuncs release the GIL in their inner loops, so threads
calling them on disjoint slices of one buffer run truly in parallel.

The calling thread always works too: it claims chunks from the same counter as the helpers and
only waits for chunks a helper has already started. So a run never waits for a helper that is
busy, not yet awake, or gone (a forked child has none): on a loaded machine it degrades to the
single-threaded run plus the cost of posting the work, and several threads calling ``run`` at
once cannot deadlock (helpers never wait for anything; each caller finishes its own task).

Helpers are daemon threads created on first use: ``threads() - 1`` of them, since the caller
is the remaining worker. ``DISPATCH_LINT_THREADS`` sets ``threads()`` (1 turns chunking off);
the default is the number of cores this process may run on.
"""

from __future__ import annotations

import itertools
import os
import queue
import threading
from collections.abc import Callable

import numpy as np

__all__ = ["ChunkPool", "pool", "threads"]


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
        self.work = work
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
                        self.done.set()


class ChunkPool:
    """Helper threads that join the caller in running a task's chunks."""

    def __init__(self, helpers: int) -> None:
        self.helpers = helpers
        self._tasks: queue.SimpleQueue[_Task] = queue.SimpleQueue()
        for number in range(helpers):
            threading.Thread(
                target=self._serve, name=f"dispatch-lint-fusion-{number}", daemon=True
            ).start()

    def _serve(self) -> None:
        # The plan runs under errstate(all="ignore") (IEEE results, no warnings, as the
        # reference interpreter); NumPy's error state is per thread, so helpers set it too.
        with np.errstate(all="ignore"):
            while True:
                self._tasks.get().help()

    def run(self, work: Callable[[int], None], chunks: int) -> None:
        """Call ``work(i)`` for every ``i < chunks``, spread over the caller and the helpers;
        returns when all are done and re-raises the first exception one of them raised."""
        task = _Task(work, chunks)
        # A helper that wakes after the caller finished finds nothing left to claim.
        for _ in range(min(self.helpers, chunks - 1)):
            self._tasks.put(task)
        task.help()
        task.done.wait()
        if task.error is not None:
            raise task.error


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
