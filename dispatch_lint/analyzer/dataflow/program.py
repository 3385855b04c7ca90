"""The whole program: modules, the heap, units and their fixpoint, summaries on demand.

:class:`Program` holds every checked module, resolves qualified names through the modules'
imports (absolute, relative, aliased, re-exported), and computes a summary
(:class:`~dispatch_lint.analyzer.summaries.Summary`) for every function, method, closure and
lambda on demand, bottom-up: a call analyses its callee first. Whole rounds repeat until no
summary and no heap slot (module globals, ``self.`` fields, container contents) changes, which
also settles recursion and values that flow through globals and fields. Findings are collected
in the last round only, so they reflect the fixpoint.

What the program knows of functions, classes and calls lives beside the interpreter's half of
each concept (:mod:`.functions`, :mod:`.classes`, :mod:`.calls`, :mod:`.runtime`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import replace
from typing import Any

import libcst as cst

from dispatch_lint.analyzer import model
from dispatch_lint.analyzer.bounds import (
    MAX_CLOSURES,
    MAX_DEEP_ROUNDS,
    MAX_PRECISE_SLOTS,
    MAX_ROUNDS,
    MAX_SITES_PER_NODE,
    MAX_UNIT_DEPTH,
    MAX_VIEWS,
    ROUND_BUDGET,
)
from dispatch_lint.analyzer.dataflow.calls import CallModel
from dispatch_lint.analyzer.dataflow.classes import ClassModel
from dispatch_lint.analyzer.dataflow.functions import FunctionDefinitions, default_name
from dispatch_lint.analyzer.dataflow.run import FunctionRun
from dispatch_lint.analyzer.dataflow.runtime import UserModel
from dispatch_lint.analyzer.dataflow.state import Slot, State
from dispatch_lint.analyzer.dataflow.syntax import dotted_name
from dispatch_lint.analyzer.dataflow.traces import TraceModel, TraceSpec
from dispatch_lint.analyzer.dataflow.views import CONSTRUCTORS, ViewContext
from dispatch_lint.analyzer.events import Event, Hit
from dispatch_lint.analyzer.facts import ClassInfo, FileInfo, Finding, FuncInfo, Unit
from dispatch_lint.analyzer.project import importing
from dispatch_lint.analyzer.summaries import EMPTY_SUMMARY, Summary
from dispatch_lint.analyzer.values import (
    EMPTY,
    UNKNOWN,
    Box,
    Closure,
    Cls,
    Const,
    Inst,
    Partial,
    Ref,
    Site,
    Step,
    Str,
    Sym,
    Trace,
    TracedFunction,
    Tup,
    Value,
    enters_via,
    narrow_not_capture,
)
from dispatch_lint.frameworks import FRAMEWORKS, FrameworkModel

#: what a note says when a function's views were bounded (see Program.bounded_view)
VIEWS_REDUCED = (f"called with more than {MAX_VIEWS} different views of the globals and "
                 "fields it reads: in the later ones they are unknown")
#: what a note says when a function's closures were bounded (see Program.bounded_closure)
CLOSURES_REDUCED = (f"made as more than {MAX_CLOSURES} different closures: in the later ones "
                    "what it captured is unknown")
UNKNOWN_VALUE = Value.of(UNKNOWN)
#: The view every caller of a function shares once it was summarised for MAX_VIEWS views: the
#: join of those callers' views (see Program.bounded_view). One summary then stands for all
#: of them, whatever slots they wrote.
WIDENED_VIEW: ViewContext = frozenset({(("widened",), UNKNOWN_VALUE, True)})


#: Names of the standard library whose value when the code runs is known: the imports under
#: ``if TYPE_CHECKING:`` are for type checkers only (a library's whole public API, often)
_KNOWN_CONSTANTS = {
    f"{module}.TYPE_CHECKING": Value.of(Const(False)) for module in ("typing", "typing_extensions")
}


class Program(FunctionDefinitions, ClassModel, CallModel, UserModel, TraceModel):
    """All checked modules and the analysis state shared by their functions.

    ``models`` are the frameworks whose models apply (default: all); ``sources`` the checked
    files' bytes, which say whether a traced framework is in play at all; ``entries`` the
    files whose top level and functions are analysed as entry points (default: all). The
    other files are analysed where an entry needs them: a module when a name of it is
    read, a function when it is called, and the modules that import a module (``importers``,
    by file) when what its top level made is read (their imports may have filled a
    registry of it)."""

    def __init__(self, files: Sequence[FileInfo], user: model.Model,
                 judge: Callable[[Event], Iterable[Hit]],
                 models: Iterable[FrameworkModel] = FRAMEWORKS,
                 sources: Iterable[bytes] = (),
                 entries: Collection[int] | None = None,
                 importers: Sequence[Collection[int]] = ()) -> None:
        self.files = list(files)
        self.entries = (frozenset(range(len(self.files))) if entries is None
                        else frozenset(entries))
        #: whether some files are analysed only where the entries need them
        self.on_demand = len(self.entries) < len(self.files)
        self.importers = importers
        #: per round: the modules whose importers ran because what they made was read
        self.importers_run: set[int] = set()
        #: the modules an import statement the analysis ran names (and their packages): the
        #: modules Python has run by then, whose top levels may fill a registry
        self.imported: set[int] = set()
        self.user = user
        self.rules_judge = judge
        models = tuple(models)
        sources = tuple(sources)
        #: whether the dispatch runtime's model applies (the ``frameworks`` setting)
        self.dispatch_runtime = any(m.name == "dispatch" for m in models)
        #: whether devices and dispatch tensors can be in play at all: the runtime's model
        #: applies and a file names it, or the user configured sources, sinks or
        #: sanitizers (without sources, as for an engine given no bytes: assume so)
        self.devices = self.dispatch_runtime and (
            not sources or bool(user.sources or user.sinks or user.sanitizers)
            or any(b"dispatch_lint" in text for text in sources))
        self.init_traces(models, sources)
        self.modules: dict[str, int] = {}
        for info in self.files:
            names = (info.module,) if info.imported_as is None else info.imported_as
            for name in names:
                # The runtime is modelled, never analysed, even when its sources are checked.
                if not name.startswith("dispatch_lint"):
                    self.modules.setdefault(name, info.index)
        self.funcs: dict[int, FuncInfo] = {}
        #: the nodes of each function's body, and of each module's top level (see
        #: statements_of): where the value a finding started from was written
        self._statements: dict[object, frozenset[int]] = {}
        self.classes: dict[int, ClassInfo] = {}
        self.heap: dict[tuple[object, ...], Value] = {}
        #: the modules each module star-imports, in the order of its imports: a star import
        #: is a link, not a copy (see :meth:`global_value`)
        self.star_sources: dict[int, list[int]] = {}
        self._star_reach: dict[int, tuple[int, ...]] = {}
        #: how many precise slots (constant keys and indices) each container has
        self.precise_slots: dict[Site, int] = {}
        self.summaries: dict[tuple[object, ...], Summary] = {}
        self.done: set[tuple[object, ...]] = set()
        self.in_progress: set[tuple[object, ...]] = set()
        #: functions that take part in a recursion: a sink there is never judged to end the
        #: path (whether it always raises changes from one round of the recursion to the
        #: next, and the rounds would not settle)
        self.recursive: set[object] = set()
        #: whether each context manager method rebinds a field or a global (see
        #: Statements.rebinds), by the method's key
        self.rebinding: dict[object, bool] = {}
        self.modules_done: set[int] = set()
        self.errors: dict[int, str] = {}
        # Incremental rounds: each unit (a module's top level, a summary) remembers what it
        # read and what it found; a later round redoes it only when something it read changed.
        self.clock = 0
        self.analyses = 0
        #: the work of every unit analysis so far (see FunctionRun.work)
        self.work = 0
        self.changed_at: dict[object, int] = {}
        self.units: dict[object, Unit] = {}
        self.unit_stack: list[Unit] = []
        #: the keys of the units in ``unit_stack``, in the same order
        self.unit_keys: list[object] = []
        #: units asked for deeper than MAX_UNIT_DEPTH, each with the keys of the units that
        #: were waiting for it: the driver analyses them afterwards (see :meth:`settle`)
        self.deferred: list[tuple[list[object], tuple[object, ...]]] = []
        #: how often the driver settled deferred units so far
        self.settled = 0
        #: a small number for each summary's key: what the summary makes is made at sites
        #: owned by it, and sites compare often; the key itself holds values and receivers
        #: (whose sites hold keys in turn), as deep as the calls that made them
        self.unit_ids: dict[object, int] = {}
        #: for each unit, a number for its key without the caller's view (see :meth:`bounded`)
        self.unit_families: dict[int, int] = {}
        self._families: dict[object, int] = {}
        #: how to analyse each summary again: (function, closure, receiver, context)
        self.summary_args: dict[object, tuple[object, ...]] = {}
        self.instance_sites: dict[object, set[Site]] = {}
        #: the fields written per (class family, instance site): a copy of an instance
        #: (see :meth:`copy_fields`) gets them all
        self.field_names: dict[tuple[object, object], set[str]] = {}
        #: instances and containers kept in a field of another object: not copied per call of
        #: the function that made them
        self.stored: set[Inst | Box] = set()
        #: the instances made past MAX_INSTANCE_SITES, one per node, each with the first site
        #: (node and calling context) that made it (see shared_instance)
        self.shared: dict[Inst, Site] = {}
        #: the shared instances that stand for several calls' instances: fields unknown
        self.merged: set[Inst] = set()
        #: the constant keys written per container site (``f(**options)`` passes them)
        self.keys_at: dict[Site, set[object]] = {}
        #: the string keys each dict literal is written with (held until something is removed)
        self.literal_keys: dict[Site, set[str]] = {}
        #: the order a dict's literal was written with its keys in (None: literals made at
        #: one site disagree), see key_order
        self.key_orders: dict[Site, tuple[str, ...] | None] = {}
        self.contexts: dict[int, set[tuple[object, ...]]] = {}
        #: the views each function was summarised for (see :meth:`bounded_view`)
        self.views: dict[int, set[ViewContext]] = {}
        #: per function past MAX_VIEWS: the join of its later callers' views, which its
        #: summary for WIDENED_VIEW starts from (slot -> value, written by every such caller)
        self.widened_views: dict[int, dict[object, tuple[Value, bool]]] = {}
        #: what the closures each function was summarised for captured (see
        #: :meth:`bounded_closure`)
        self.closures: dict[object, set[tuple[tuple[str, Value], ...]]] = {}
        self.node_sites: dict[tuple[object, ...], set[Site]] = {}
        self.changed = False
        #: per round: which units were found outdated (see :meth:`outdated`)
        self._outdated: dict[object, bool] = {}
        self._free_names: dict[int, frozenset[str]] = {}
        #: (function, name) of variables that functions nested in it declare ``nonlocal``
        self.cells: set[tuple[int, str]] = set()
        #: where precision was dropped at a bound: (file, what was analysed) -> why
        self.reduced: dict[tuple[int, str], dict[str, None]] = {}

    def run(self) -> None:
        """Analyse every module and function to the fixpoint, or until the bounds on rounds
        and on unit analyses; the units whose reads changed after their last analysis then
        are said to have dropped precision."""
        for rounds in range(MAX_DEEP_ROUNDS):
            if rounds >= MAX_ROUNDS and not self.settled:
                break
            self.changed = False
            self.done = set()
            self._outdated = {}
            self.modules_done = set()
            self.importers_run = set()
            for file in sorted(self.entries):
                self.analyze_module(file)
                self.settle()
            # A function that a call reaches is analysed in the contexts its calls give;
            # alone (no caller) it would stand for no run of the program and report nothing
            # (see :attr:`findings`).
            called = self._called()
            for key in list(self.funcs):
                if self.funcs[key].file in self.entries and key not in called:
                    self.summary(self.funcs[key], None)
                    self.settle()
            if not self.changed:
                return
            if self.analyses > ROUND_BUDGET * (len(self.funcs) + len(self.files)) + 500:
                break  # pathological code: keep the last round's results
        self.note_unsettled()

    def note_unsettled(self) -> None:
        """Say where the fixpoint was cut short: each unit that read what changed after."""
        why = ("the fixpoint was cut short (its bounds on rounds and analyses): what it "
               "read changed after its last analysis")
        for key in self.units:
            if not self.outdated(key):
                continue
            if isinstance(key, tuple) and key[0] == "module":
                self.note_reduced(key[1], None, why)
            elif key in self.summary_args:
                info = self.summary_args[key][0]
                self.note_reduced(info.file, info, why)

    def settle(self) -> None:
        """Analyse the units deferred at the depth bound, each before the units that waited
        for it (innermost first), as the recursion it replaces would have: a chain of calls
        (or imports) of any length is analysed in one round, a stretch of MAX_UNIT_DEPTH
        units at a time, without Python's stack growing with it."""
        pending: list[tuple[list[object], tuple[object, ...], bool]] = []
        if self.deferred:
            self.settled += 1
        while self.deferred or pending:
            pending.extend((keys, waiting, False) for keys, waiting in reversed(self.deferred))
            self.deferred.clear()
            keys, waiting, started = pending.pop()
            if not started:
                pending.append((keys, waiting, True))
                for key in keys:
                    self.redo(key)
                continue
            for waiter in reversed(waiting):
                self.redo(waiter)  # again if what it read of the deferred units changed

    def redo(self, key: object) -> None:
        """Analyse the unit ``key`` again in this round if it is outdated."""
        if isinstance(key, tuple) and key[0] == "module":
            self.modules_done.discard(key[1])
            self.analyze_module(key[1])
        elif key in self.summary_args:
            self.done.discard(key)
            self.summary(*self.summary_args[key])

    def too_deep(self, key: object) -> bool:
        """Whether the unit ``key``, asked for now, must wait for the driver: past
        MAX_UNIT_DEPTH nested units it is treated as in progress (its last summary, or
        none, is used) and analysed once the units above it are done."""
        if len(self.unit_stack) < MAX_UNIT_DEPTH:
            return False
        waiting = tuple(self.unit_keys)
        if self.deferred and self.deferred[-1][1] == waiting:
            if key not in self.deferred[-1][0]:
                self.deferred[-1][0].append(key)
        else:
            self.deferred.append(([key], waiting))
        return True

    def analyze_module(self, file: int) -> None:
        if file in self.modules_done or file in self.errors:
            return
        key = ("module", file)
        if self.too_deep(key):
            return
        self.modules_done.add(file)
        if not self.outdated(key):
            return
        tree = self.files[file].parsed()
        if tree is None:
            return  # its names stay unknown (the engine noted why it was not parsed)
        run = FunctionRun(self, file, key, None, is_module=True)
        self.begin_unit(key)
        try:
            run.run_block(tree.body, State())
        except RecursionError:
            self.errors[file] = "internal error: code nested too deeply to analyse"
        except Exception as exc:  # noqa: BLE001 - one file's failure must not stop the run
            self.errors[file] = f"internal error: {type(exc).__name__}: {exc}"
        finally:
            self.work += run.work
            self.end_unit()

    def begin_unit(self, key: object) -> None:
        self.analyses += 1
        unit = Unit(self.clock)
        self.units[key] = unit
        self.unit_stack.append(unit)
        self.unit_keys.append(key)

    def end_unit(self) -> None:
        self.unit_stack.pop()
        self.unit_keys.pop()

    def outdated(self, key: object) -> bool:
        """Whether the unit ``key`` must be (re)analysed: never done, or something changed
        after it first read it (what it wrote itself before reading it does not count), or
        a summary it used is itself outdated (a callee only its callers ask for again)."""
        unit = self.units.get(key)
        if unit is None:
            return True
        known = self._outdated.get(key)
        if known is not None:
            return known
        self._outdated[key] = False  # a cycle of summaries: decided by the other deps
        changed_at = self.changed_at
        found = any(changed_at.get(dep, -1) >= first for dep, first in unit.reads.items())
        if not found:
            found = any(isinstance(dep, tuple) and dep[0] == "s" and dep[1] not in self.done
                        and self.outdated(dep[1]) for dep in unit.reads)
        self._outdated[key] = found
        return found

    def note_read(self, dep: object) -> None:
        if self.unit_stack:
            self.unit_stack[-1].reads.setdefault(dep, self.clock)

    def note_change(self, dep: object) -> None:
        self.changed = True
        self.changed_at[dep] = self.clock
        self.clock += 1

    def note_reduced(self, file: int, func: FuncInfo | None, why: str) -> None:
        """Remember that the analysis of ``func`` (None: the top level of ``file``) dropped
        precision at a bound (``why``, in a few words): the engine reports it as a note."""
        if func is not None:
            where = (func.file, f"`{func.qualname}()`")
        else:
            where = (file, f"the top level of `{self.files[file].module}`")
        self.reduced.setdefault(where, {})[why] = None

    @property
    def findings(self) -> dict[tuple[str, int, int], Finding]:
        """Every unit's findings from its latest analysis; a summary no call used, of a
        function that calls reach in other contexts, stands for no run of the program (its
        parameters as nobody passes them) and reports nothing."""
        out: dict[tuple[str, int, int], Finding] = {}
        for unit_key in self._reported_units():
            unit = self.units[unit_key]
            for key, finding in unit.findings.items():
                old = out.get(key)
                if old is None or _trace_len(finding.hit.trace) < _trace_len(old.hit.trace):
                    out[key] = finding
        return out

    def _called(self) -> set[object]:
        """The functions (by key) whose summaries the latest analyses' calls used."""
        return {unit_key[0] for unit in self.units.values() for unit_key in unit.calls
                if isinstance(unit_key, tuple)}

    def _reported_units(self) -> list[object]:
        """The units that stand for runs of the program: module top levels, summaries of
        functions no call reaches (entry points), and what calls made from those use."""
        called = self._called()
        pending = [k for k in self.units
                   if not (isinstance(k, tuple) and k[0] in called) or k[0] == "module"]
        seen = set(pending)
        while pending:
            unit = self.units.get(pending.pop())
            for used in unit.calls if unit is not None else ():
                if used not in seen and used in self.units:
                    seen.add(used)
                    pending.append(used)
        return [k for k in self.units if k in seen]

    def write(self, key: tuple[object, ...], value: Value, keyed: bool = False) -> None:
        """Join ``value`` into the heap slot ``key``. A container's shared slot ``("b",
        site)`` keeps what it got under no constant key apart too (``("bu", site)``), unless
        ``keyed``: each part is also in its key's precise slot (a literal's entries), so that
        what a later write under that key replaces can be told apart."""
        if self.traced:
            value = self.heap_value(key, value)
        if not value:
            return
        self._join_into(key, value)
        if key[0] == "b" and not keyed:
            self._join_into(("bu", key[1]), value)

    def _join_into(self, key: tuple[object, ...], value: Value) -> None:
        old = self.heap.get(key)
        new = value if old is None else old.join(value)
        if old is None or new != old:
            self.note_change(key)
        self.heap[key] = new

    def read(self, key: tuple[object, ...]) -> Value | None:
        self.note_read(key)
        if self.on_demand and key[0] != "g":
            self.run_importers(key)
        return self.heap.get(key)

    def run_importers(self, key: tuple[object, ...]) -> None:
        """Before the contents or fields of a container or object that a module's top level
        made are read (a registry), run the top levels of the modules importing it, directly
        or not, as Python does before any of their code can run: a decorator there may
        have filled it (``@register`` in a plugin module a script imports for that)."""
        kind = key[0]
        if kind == "f":
            site = key[2]
            file = self.classes[key[1]].file if site == "class" and key[1] in self.classes \
                else None
        elif kind in ("b", "bk"):
            site = key[1]
            file = None
        else:
            return
        if file is None:
            owner = getattr(site, "owner", None)
            if not (isinstance(owner, tuple) and owner[0] == "module"):
                return
            file = owner[1]
        if file in self.importers_run or file >= len(self.importers):
            return
        self.importers_run.add(file)
        # Only the importers that run: an entry, or a module an import the analysis ran
        # names (a library's other modules importing its core never run for this program).
        # Running one may import another, so until none is left.
        waiting = sorted(importing(self.importers, (file,)) - {file})
        while waiting:
            runs = [i for i in waiting if i in self.imported or i in self.entries]
            if not runs:
                return
            waiting = [i for i in waiting if i not in runs]
            for importer in runs:
                self.analyze_module(importer)

    def note_imported(self, qualname: str) -> None:
        """An import of ``qualname`` ran: the module and its packages have run (or, for a name
        in a module, that module)."""
        parts = qualname.split(".")
        for end in range(1, len(parts) + 1):
            file = self.modules.get(".".join(parts[:end]))
            if file is not None:
                self.imported.add(file)

    def global_value(self, file: int, name: str) -> Value | None:
        """The global ``name`` of the module ``file``: what the module binds to it, joined
        with what the modules it star-imports (directly or through others) bind to it."""
        key = ("g", file, name)
        if key not in self.heap and file not in self.modules_done:
            self.analyze_module(file)
        value = self.read(key)
        if name.startswith("_"):
            return value
        self.note_read(("stars", file))
        for source in self.star_reach(file):
            found = self.read(("g", source, name))
            if found:
                value = found if value is None else value.join(found)
        return value

    def star_import(self, file: int, module: str) -> int | None:
        """``from module import *`` at the top level of ``file``: the module's public names
        become ``file``'s by a link that :meth:`global_value` follows when a name is read,
        so that modules star-importing each other cost what they read, not all their names
        copied into each of them again on every round. Returns the module's file, None when
        it is not in the tree."""
        source = self.modules.get(module)
        if source is None:
            return None
        self.analyze_module(source)
        sources = self.star_sources.setdefault(file, [])
        if source not in sources and source != file:
            sources.append(source)
            self._star_reach.clear()
            self.note_change(("stars", file))
        return source

    def star_reach(self, file: int) -> tuple[int, ...]:
        """The modules whose public names ``file`` gets through star imports, nearest first."""
        reach = self._star_reach.get(file)
        if reach is None:
            seen = {file}
            order: list[int] = []
            pending = list(reversed(self.star_sources.get(file, ())))
            while pending:
                source = pending.pop()
                if source in seen:
                    continue
                seen.add(source)
                order.append(source)
                pending.extend(reversed(self.star_sources.get(source, ())))
            reach = self._star_reach[file] = tuple(order)
        return reach

    def binds(self, file: int, name: str) -> bool:
        """Whether the module ``file`` binds ``name`` itself or through its star imports."""
        return any(("g", source, name) in self.heap for source in (file, *self.star_reach(file)))

    def write_key(self, site: Site, key: object, value: Value) -> bool:
        """The container made at ``site`` may hold ``value`` under the constant ``key`` (its
        precise slot); False when it has MAX_PRECISE_SLOTS precise slots already (its shared
        slot alone then holds what the later keys hold)."""
        slot = ("bk", site, key)
        if slot not in self.heap and value:
            count = self.precise_slots.get(site, 0)
            if count >= MAX_PRECISE_SLOTS:
                return False
            self.precise_slots[site] = count + 1
        keys = self.keys_at.setdefault(site, set())
        if key not in keys:
            keys.add(key)
            self.note_change(("keys", site))
        self.write(slot, value)
        return True

    def past_precise_slots(self, site: Site) -> bool:
        """Whether the container made at ``site`` has no more precise slots to give."""
        return self.precise_slots.get(site, 0) >= MAX_PRECISE_SLOTS

    def box_keys(self, box: Box) -> set[object]:
        """The constant keys the container ``box`` is known to hold."""
        self.note_read(("keys", box.site))
        return self.keys_at.get(box.site, set())

    def shift_indices(self, box: Box) -> None:
        """Items of the list ``box`` moved (``insert``, ``pop(i)``, ``sort``, ...): what an
        index held before says nothing any more."""
        self.write(("shifted", box.site), Value.of(Const(True)))

    def grow(self, box: Box) -> None:
        """``box`` gained items past its literal's under no constant key or index
        (``append``, ``extend``, a starred item, ``d[name] = v``): its length, or which keys
        it holds, is not known any more."""
        self.write(("grown", box.site), Value.of(Const(True)))

    def forget_shape(self, box: Box) -> None:
        """Items of ``box`` were removed (``del``, ``clear``, ``dict.pop``): neither its
        indices nor its keys say what it holds any more."""
        self.shift_indices(box)
        self.grow(box)

    def known_keys(self, box: Box) -> list[str] | None:
        """The string keys the dict ``box`` holds when no write under another key reached
        it (``vars(obj)``, a literal with constant keys), sorted; else None."""
        if box.kind != "dict" or self.read(("grown", box.site)):
            return None
        keys = self.box_keys(box)
        if not keys or not all(isinstance(k, str) for k in keys):
            return None
        return sorted(keys)  # type: ignore[arg-type]

    def holds_key(self, box: Box, key: str) -> bool:
        """Whether the dict ``box`` certainly holds ``key``: its literal was written with it
        and nothing was removed from it since (``del``, ``pop``, ``clear``)."""
        return key in self.literal_keys.get(box.site, ()) and not self.read(
            ("shifted", box.site))

    def note_key_order(self, site: Site, order: tuple[str, ...] | None) -> None:
        """The dict made at ``site`` was made with the keys ``order``, in that order."""
        if site in self.key_orders and self.key_orders[site] != order:
            order = None  # two literals (or calls) made it differently
        if self.key_orders.get(site, ()) != order:
            self.note_change(("keys", site))
        self.key_orders[site] = order

    def key_order(self, box: Box) -> tuple[str, ...] | None:
        """The keys the dict ``box`` holds in the order iterating it gives them, when they
        are its literal's (nothing added under another key, nothing removed: a key set
        again keeps its place); else None."""
        order = self.key_orders.get(box.site)
        if not order or self.read(("shifted", box.site)):
            return None
        known = self.known_keys(box)
        return order if known is not None and set(known) == set(order) else None

    def known_length(self, box: Box) -> int | None:
        """How many items the list ``box`` certainly holds, when every index up to it has
        its own slot and nothing added or moved items; else None."""
        if box.kind != "list" or self.read(("grown", box.site)) or self.read(
                ("shifted", box.site)):
            return None
        keys = self.box_keys(box)
        if not keys or not all(isinstance(k, int) and not isinstance(k, bool) for k in keys):
            return None
        return len(keys) if keys == set(range(len(keys))) else None

    def box_item(self, box: Box, key: object) -> Value:
        if key is not None and not (isinstance(key, int) and self.read(("shifted", box.site))):
            exact = self.read(("bk", box.site, key))
            if exact is not None:
                return exact
            if self.precise_slots.get(box.site, 0) >= MAX_PRECISE_SLOTS:
                # a key past the bound: what the shared slot holds, but never a capture
                # tensor that another key may hold (unknown, not capture)
                return narrow_not_capture(self.read(("b", box.site)) or EMPTY)
        return self.read(("b", box.site)) or EMPTY

    def absolute_module(self, file: int, node: cst.ImportFrom) -> str | None:
        """The module an ``ImportFrom`` names, relative imports resolved."""
        name = dotted_name(node.module) if node.module is not None else ""
        if not node.relative:
            return name
        info = self.files[file]
        if info.relative is not None:
            return info.relative.get((len(node.relative), name))
        package = info.module.split(".")
        if not info.is_package:
            package = package[:-1]
        up = len(node.relative) - 1
        if up > len(package):
            return None
        base = package[: len(package) - up] if up else package
        return ".".join([*base, name] if name else base)

    def resolve(self, qualname: str) -> Value | None:
        """What ``qualname`` denotes in the checked tree, or None when it is outside it (but
        for the few names outside it whose value at run time is known: ``TYPE_CHECKING``)."""
        if qualname in self.modules:
            return Value.of(Ref(qualname, key=("module", self.modules[qualname])))
        parts = qualname.split(".")
        for i in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:i])
            if module in self.modules:
                value = self.global_value(self.modules[module], parts[i])
                if value is None or i + 1 < len(parts):
                    return None
                return value
        return _KNOWN_CONSTANTS.get(qualname)

    def bounded_view(self, info: FuncInfo, view: ViewContext) -> ViewContext:
        """``view``, or once ``info`` was summarised for MAX_VIEWS views, WIDENED_VIEW: the
        join of the views of every such later caller (a slot some of them did not write also
        holds what the heap holds), which they share one summary for. A view per caller
        (tests each filling a dict of their own before they call, instances told apart by
        where they are made) would make one summary each; unknown in place of the joined
        values would drop what any of them wrote (numpyro's handlers on `_PYRO_STACK`). The
        join only grows: a summary made before a caller added to it is outdated."""
        if self._admitted(self.views, info, view, MAX_VIEWS, VIEWS_REDUCED):
            return view
        first = info.key not in self.widened_views
        joined = self.widened_views.setdefault(info.key, {})
        grew = False
        for slot, value, must in view:
            value = _context_free(value)
            old = joined.get(slot)
            new = (value, must and first) if old is None else (old[0].join(value),
                                                                old[1] and must)
            if old is None or new[1] != old[1] or new[0] != old[0]:
                joined[slot] = new
                grew = True
        written = {slot for slot, _, _ in view}
        for slot, (value, must) in joined.items():
            if must and slot not in written:
                joined[slot] = (value, False)  # this caller's path left the heap's value
                grew = True
        if grew:
            self.note_change(("widened", info.key))
        return WIDENED_VIEW

    def bounded_closure(self, info: FuncInfo, closure: Closure) -> Closure:
        """``closure``, or once ``info`` was summarised for MAX_CLOSURES closures, the same
        closure capturing unknown values (all later closures share one summary). A
        decorator's wrapper (:meth:`_wrapped_functions`) counts against a bound of its own
        per set of functions it wraps: there is one per function decorated, as many as the
        code has (chex: over a hundred), where the closures that recursion makes capture
        ever new values (numpyro's, over may-sets of classes)."""
        wrapped = self._wrapped_functions(closure)
        if self._admitted(self.closures, info, closure.captured, MAX_CLOSURES,
                          CLOSURES_REDUCED, by=(info.key, wrapped)):
            return closure
        return Closure(closure.key, tuple((name, UNKNOWN_VALUE) for name, _ in closure.captured),
                       closure.no_capture)

    def _wrapped_functions(self, closure: Closure, depth: int = 0) -> frozenset[object]:
        """The functions of the code a decorator's wrapper ``closure`` wraps: each captured
        value is constants or one function (not a may-set of them: a parameter holding any
        of many classes, as in a dispatch on types, makes ever new sets), a function of the
        code or a closure that is such a wrapper itself (a sibling helper, a lambda made
        at decoration), two deep at most. Empty when it is no such wrapper."""
        wrapped: set[object] = set()
        for _, value in closure.captured:
            atoms = [atom for atom in value
                     if not (isinstance(atom, Closure) and atom.key == closure.key)]  # itself
            if all(isinstance(atom, (Const, Str)) for atom in atoms):
                continue
            if len(atoms) != 1:
                return frozenset()
            atom = atoms[0]
            function = isinstance(atom, Ref) and atom.key in self.funcs
            wrapper = isinstance(atom, Closure) and depth < 2 and (
                not atom.captured or self._wrapped_functions(atom, depth + 1))
            if not (function or wrapper):
                return frozenset()
            wrapped.add(atom)
        return frozenset(wrapped)

    def _admitted(self, seen: dict[Any, set[Any]], info: FuncInfo, item: object, bound: int,
                  why: str, by: object = None) -> bool:
        """Whether ``info`` may be summarised for ``item`` (one of the first ``bound`` it
        met in ``seen``, by function, or by ``by`` when given); if not, the precision note
        says ``why``."""
        items = seen.setdefault(info.key if by is None else by, set())
        if item in items or len(items) < bound:
            items.add(item)
            return True
        self.note_reduced(info.file, info, why)
        return False

    def bounded(self, site: Site) -> Site:
        """``site``, or once a node has made things in too many contexts, a site later
        contexts share (precision traded for a bounded heap): one per function, closure,
        receiver and calling context, whatever the caller's view (a loop whose view holds
        what the previous round made makes ever new views; the instances of a class keep
        their containers apart), and past as many of those, one for all."""
        sites = self.node_sites.setdefault((site.file, site.node), set())
        if site in sites:
            return site
        if len(sites) < MAX_SITES_PER_NODE:
            sites.add(site)
            return site
        family = self.unit_families.get(site.owner)  # type: ignore[arg-type]
        shared = Site(site.file, site.node, None, (family,) if family is not None else ())
        families = self.node_sites.setdefault((site.file, site.node, "families"), set())
        if shared in families or len(families) < MAX_SITES_PER_NODE:
            families.add(shared)
            return shared
        return Site(site.file, site.node, None)

    def analysing(self, info: FuncInfo) -> bool:
        """Whether a summary of ``info`` is being made: a call of it now is recursive."""
        return any(key[0] == info.key for key in self.in_progress)

    def note_recursion(self, info: FuncInfo) -> None:
        """A call of ``info`` while its summary is being made: it and every function between
        it and this call on the stack are recursive (see :attr:`recursive`)."""
        keys = [key[0] for key in self.unit_keys if isinstance(key, tuple) and key]
        if info.key in keys:
            self.recursive.update(keys[keys.index(info.key):])

    def summary(self, info: FuncInfo, closure: Closure | None,
                self_cls: Inst | Cls | None = None, context: tuple[object, ...] = (),
                view: ViewContext = frozenset(), trace: TraceSpec | None = None,
                resume: ViewContext | None = None) -> Summary:
        """The summary of ``info`` (a closure: with its captured values; a method: for the
        receiver ``self_cls``, so that ``self.forward()`` in a base class reaches the
        subclass's override and each instance's fields stay its own; for what the caller's
        path wrote to the heap slots it reads, ``view``; ``trace``: its analysis as traced by
        a framework, see :mod:`.traces`). ``resume``: a generator run on past its yield, as
        the end of a ``@contextmanager``'s block resumes it: the code before the yield sees
        ``resume`` (the view its call had, so it goes as it went then), the code after it
        sees ``view`` (the caller's path where it resumes)."""
        if closure is not None and closure.captured:
            closure = self.bounded_closure(info, closure)
        key: tuple[object, ...] = (info.key, closure.captured if closure else None, self_cls,
                                   context, view)
        if trace is not None:
            key += (trace,)
        if resume is not None:
            key += (("resume", resume),)
        dep = ("s", key)
        if key in self.done or key in self.in_progress:
            self.note_read(dep)
            return self.summaries.get(key, EMPTY_SUMMARY)
        if info.file in self.errors:
            self.note_read(dep)
            return EMPTY_SUMMARY
        if key in self.summaries and not self.outdated(key):
            self.done.add(key)
            self.note_read(dep)
            return self.summaries[key]
        self.summary_args[key] = (info, closure, self_cls, context, view, trace, resume)
        if self.too_deep(key):
            self.note_read(dep)
            return self.summaries.get(key, EMPTY_SUMMARY)
        self.in_progress.add(key)
        self.begin_unit(key)
        try:
            summary = self._summarize(info, closure, self_cls, dict(context), key, view,
                                      trace, resume)
        except RecursionError:
            self.errors[info.file] = "internal error: code nested too deeply to analyse"
            summary = EMPTY_SUMMARY
        except Exception as exc:  # noqa: BLE001 - one file's failure must not stop the run
            self.errors[info.file] = f"internal error: {type(exc).__name__}: {exc}"
            summary = EMPTY_SUMMARY
        finally:
            self.in_progress.discard(key)
            self.end_unit()
        self.done.add(key)
        old = self.summaries.get(key)
        if old is None or old.signature() != summary.signature():
            self.note_change(dep)
        self.summaries[key] = summary
        # Read once made: the caller goes on with this very summary, so only a later change
        # (recursion settling, a later round) makes the caller outdated.
        self.note_read(dep)
        return summary

    def _summarize(self, info: FuncInfo, closure: Closure | None,
                   self_cls: Inst | Cls | None, context: dict[int, Value], key: object,
                   view: ViewContext, trace: TraceSpec | None = None,
                   resume: ViewContext | None = None) -> Summary:
        if closure is not None:
            captured = {name: value for name, value in closure.captured if name}
        else:  # a method of a class defined in a function sees that function's names
            captured = info.cls.captured if info.cls is not None else {}
        run = FunctionRun(self, info.file, info.key, info, captured=captured)
        run.param_context = context
        run.at_large = self_cls is None and closure is None and info.cls is not None
        owner = self.unit_ids.setdefault(key, len(self.unit_ids))
        family = (*key[:4], *key[5:])  # the key without the view
        self.unit_families[owner] = self._families.setdefault(family, len(self._families))
        run.site_owner = owner
        run.entry_view = self._entry_view(info, view)
        if resume is not None:
            run.resume_view, run.entry_view = run.entry_view, self._entry_view(info, resume)
        state = State()
        trace_id = (info.key, trace)
        if trace is not None:
            self.traced_units.add(owner)  # what its sites are owned by
            run.trace = self.trace_state(info, trace, trace_id)
            for value in captured.values():
                run.note_outside(value)  # what a traced closure sees existed before the trace
        for index, param in enumerate(info.params):
            traced = self.bind_traced_parameter(info, index, trace, trace_id) if (
                trace is not None) else None
            if traced is not None:
                state.env[param.name] = traced
                continue
            if index == 0 and info.cls is not None and info.kind in ("method", "property",
                                                                     "setter"):
                state.env[param.name] = Value.of(self_cls or Inst(info.cls.key))
                run.self_value = state.env[param.name]
                if trace is not None:
                    run.note_outside(run.self_value)
            elif index == 0 and info.cls is not None and info.kind == "classmethod":
                state.env[param.name] = Value.of(self_cls or Cls(info.cls.key))
            else:
                step = Step(info.file, param.node, f"parameter `{param.name}` of `{info.name}()`",
                            info.anchor)
                symbol = Value.of(Sym(index, (), info.no_capture, info.key), Trace(step))
                shape = context.get(("shape", index))  # type: ignore[call-overload]
                if shape is not None:
                    symbol = run.packed_parameter(param, symbol, shape)
                if ("default", index) in context and index in info.defaults:
                    # the call takes the default: its value is born here, not in the caller
                    # (or, over the parameters of the function that made the closure, what
                    # that function was passed)
                    default = captured.get(default_name(index), info.defaults[index])
                    symbol = default.map_traces(Step(
                        info.file, param.node, f"default of parameter `{param.name}`",
                        step.anchor))
                state.env[param.name] = symbol
        if isinstance(info.node, cst.Lambda):
            run.anchor = info.anchor
            run.path = state  # the one path of its body (as run_block sets for a statement)
            ret = run.eval(info.node.body, state)
            run.returns = run.returns.join(ret)
            run.returned = not run.diverged
            run.note_exit(state, info.node.body)
            end: State | None = None
        else:
            end = run.run_block(info.node.body.body, state)
        ret = run.returns
        parts = run.return_parts
        if end is not None:
            ret = ret.join(Value.of(UNKNOWN))
            parts.append((end.assumed, Value.of(UNKNOWN)))
            run.note_exit(end, None)
        if run.yielded:
            # a call makes a generator (one per call); iterating it gives what it yields
            ret = run.box_of("gen", info.node, run.returns)
            run.returned = True  # making a generator never raises
            parts = []
        if not any(assumed for assumed, _ in parts):
            parts = []
        if self_cls is None and info.name in CONSTRUCTORS:
            run.flush_built_fields()  # no caller replays it: the class's instances at large
        guards = run.exit_guards
        self.work += run.work
        written = run.exit_view or {}
        effects, written = self._reachable_effects(run, ret, written)
        fresh = frozenset(a for target, _, _ in effects for a in target
                          if a in run.made and a not in run.outside)
        return Summary(ret, tuple(run.pending.values()), effects, owner,
                       fresh=fresh,
                       returns_normally=end is not None or run.returned,
                       passes=run.exit_passed or frozenset(),
                       guard=next(iter(guards)) if len(guards) == 1 else None,
                       sanitizes=frozenset(run.sanitized or ()),
                       view_out=tuple((slot, value, must) for slot, (value, must)
                                      in written.items()),
                       reads=frozenset(run.slot_reads),
                       none_tests=frozenset(run.none_tests), key=key,
                       ret_parts=tuple(parts), made_capture=run.made_capture)

    def _entry_view(self, info: FuncInfo, view: ViewContext) -> dict[Slot, tuple[Value, bool]]:
        """What a caller's path had written to the slots ``info`` reads, by slot."""
        if view == WIDENED_VIEW:
            self.note_read(("widened", info.key))
            return dict(self.widened_views.get(info.key, {}))
        return {slot: (value, must) for slot, value, must in view}

    def _reachable_effects(self, run: FunctionRun, ret: Value,
                           written: dict[object, tuple[Value, bool]]
                           ) -> tuple[tuple[tuple[Value, object, Value], ...],
                                      dict[object, tuple[Value, bool]]]:
        """The run's effects and exit view a caller can observe: those on a container the
        run made only while something it hands out (its result, its other effects and
        view, its pending events, a field) reaches the container; a local list's fill is not
        replayed at every call."""
        owner = run.site_owner

        def own(slot: object) -> bool:
            return isinstance(slot, tuple) and len(slot) > 1 and isinstance(
                slot[1], Box) and slot[1].site.owner == owner

        local = [e for e in run.effects.values()
                 if e[0] and all(isinstance(a, Box) and a.site.owner == owner for a in e[0])]
        if not local and not any(own(slot) for slot in written):
            return tuple(run.effects.values()), written
        local_ids = {id(e) for e in local}
        reached: set[Box] = set()
        pending: list[Value] = [ret]
        pending += [v for e in run.effects.values() if id(e) not in local_ids
                    for v in (e[0], e[2])]
        pending += [v for event in run.pending.values() for v in event.values]
        by_box: dict[Box, list[Value]] = {}
        for slot, (value, _must) in written.items():
            if own(slot):
                by_box.setdefault(slot[1], []).append(value)  # type: ignore[index]
                continue
            pending.append(value)
            pending += [Value.of(part) for part in slot[1:] if isinstance(part, (Box, Inst))]
        reached.update(a for e in local for a in e[0] if a in self.stored)
        reached.update(slot[1] for slot in written if own(slot) and slot[1] in self.stored)  # type: ignore[index]
        for target, _proj, value in local:
            for box in target:
                by_box.setdefault(box, []).append(value)
        queue = list(reached)
        while pending or queue:
            while pending:
                for box in _boxes_within(pending.pop()):
                    if box not in reached:
                        reached.add(box)
                        queue.append(box)
            if queue:
                pending += by_box.get(queue.pop(), [])
        return tuple(e for e in run.effects.values()
                     if id(e) not in local_ids or any(a in reached for a in e[0])), {
            slot: held for slot, held in written.items() if not own(slot) or slot[1] in reached}

    def decided_outside(self, hit: Hit, callers: Sequence[tuple[object, ...]]) -> bool:
        """Whether what a hit about tensors born in a callee started from (the device string
        or device its trace begins with) was written in one of the ``callers`` frames or at
        a module's top level (a settings table): the caller's value decided the finding,
        which is reported where the callers passed it, not where the tensor was made."""
        steps = hit.trace.steps() if hit.trace is not None else []
        origin = steps[0].anchor if steps else None
        if origin is None:
            return False
        if id(origin) in self.statements_of(("module", steps[0].file)):
            return True
        return any(id(origin) in self.statements_of(frame[0]) for frame in callers)

    def statements_of(self, key: object) -> frozenset[int]:
        """The ids of the nodes of function ``key``'s body (``("module", file)``: of the
        file's top level, outside its functions), computed once."""
        known = self._statements.get(key)
        if known is not None:
            return known
        module = isinstance(key, tuple) and key[:1] == ("module",)
        root: cst.CSTNode | None = None
        if module:
            root = self.files[key[1]].parsed()  # type: ignore[index]
        elif (func := self.funcs.get(key)) is not None:  # type: ignore[arg-type]
            root = func.node.body
        found: set[int] = set()
        pending = [root] if root is not None else []
        while pending:
            node = pending.pop()
            found.add(id(node))
            pending.extend(child for child in node.children if not (
                module and isinstance(child, (cst.FunctionDef, cst.Lambda))))
        known = self._statements[key] = frozenset(found)
        return known

    def judge(self, event: Event, fresh: set[object] | None, defer: bool = False,
              born: dict[object, object] | None = None, at_via: object = None
              ) -> tuple[bool, bool]:
        """Let the rules judge ``event``; keep their hits (only those that involve ``fresh``
        atoms when the event comes from a callee, so no finding is reported twice). Whether
        there was one, and whether one was left to the caller.

        Where a hit is reported follows the value outwards through the calls that passed it
        (the corpora's convention): a hit about values that came from the receiver's fields
        of ``event.via`` is left to the caller when ``defer`` (keep the event pending); a hit
        about tensors all ``born`` in a callee (made there on a device the caller gave) is
        reported in that callee's frame, and so is a hit about the free names of the closure
        ``at_via`` when the function that made it calls it."""
        found = deferred = False
        for hit in self.rules_judge(event):
            supplied = event.via is not None and any(
                enters_via(value.trace(c), event.via) for c in hit.culprits
                for value in event.values if c in value)
            if supplied and defer:
                deferred = True
                continue
            if not supplied and fresh is not None and not any(c in fresh for c in hit.culprits):
                continue
            file, node = event.file, event.node
            owners = {born.get(c) for c in hit.culprits} if born else {None}
            if supplied and at_via is not None and event.via == at_via:
                owners = {at_via}
            if None not in owners and len(owners) == 1:
                owner = owners.pop()
                # the function that made them, else (made by a helper it called, the tensor
                # returned to it) the callee whose call this is: they were born under it,
                # unless what decided their device came in through that call (the caller's
                # device string or config): then further out, where that value came from
                at = next((i for i, f in enumerate(event.frames) if f[0] == owner),
                          len(event.frames) - 2)
                if at >= 0 and not self.decided_outside(hit, event.frames[at + 1:]):
                    file, node = event.frames[at][1], event.frames[at][2]
            found = True
            key = (hit.rule, file, id(node))
            findings = self.unit_stack[-1].findings
            old = findings.get(key)
            if old is None or _trace_len(hit.trace) < _trace_len(old.hit.trace):
                located = event if node is event.node else replace(
                    event, file=file, node=node, anchor=_anchor_of(event, node))
                findings[key] = Finding(hit, located)
        return found, deferred


def _context_free(value: Value) -> Value:
    """``value`` without what means something only in one calling context (parameters and
    what holds them), which is unknown instead: what callers that share a view wrote."""
    kept = value.filter(lambda a: not _holds_parameters(a))
    return kept if len(kept) == len(value) else kept.join(UNKNOWN_VALUE)


def _holds_parameters(atom: object) -> bool:
    if isinstance(atom, Sym):
        return True
    if isinstance(atom, (Tup, Closure)):
        return bool(atom.parameters_of)
    if isinstance(atom, Partial):
        return any(_holds_parameters(a) for v in (atom.func, *atom.args,
                                                  *(v for _, v in atom.kwargs)) for a in v)
    return False


def _anchor_of(event: Event, node: cst.CSTNode) -> cst.CSTNode | None:
    for _, _, frame_node, anchor in event.frames:
        if frame_node is node:
            return anchor
    return None


def _trace_len(trace: Trace | None) -> int:
    return trace.length if trace is not None else 0


def _boxes_within(value: Value, depth: int = 8) -> set[Box]:
    """The containers ``value`` is or holds in tuples, closures, partials and traced
    functions (not through the heap)."""
    out: set[Box] = set()
    for atom in value:
        if isinstance(atom, Box):
            out.add(atom)
        elif depth <= 0:
            continue
        elif isinstance(atom, Tup):
            for item in atom.items:
                out |= _boxes_within(item, depth - 1)
        elif isinstance(atom, Closure):
            for _, held in atom.captured:
                out |= _boxes_within(held, depth - 1)
        elif isinstance(atom, Partial):
            for held in (atom.func, *atom.args, *(v for _, v in atom.kwargs)):
                out |= _boxes_within(held, depth - 1)
        elif isinstance(atom, TracedFunction):
            out |= _boxes_within(atom.func, depth - 1)
    return out
