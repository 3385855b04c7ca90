"""The bounds that keep the analysis finite and its cost about linear in the code.

Every bound trades precision for time in one place; all of them are here, so that a reader
sees at once what the analysis gives up and where. Past a bound, values widen to unknown
(never to capture), so a bound can cost a finding but never invent one.
"""

from __future__ import annotations

__all__ = [
    "MAX_ASSUMED",
    "MAX_CONTEXTS",
    "MAX_DEEP_ROUNDS",
    "MAX_INSTANCE_SITES",
    "MAX_LOOP_ROUNDS",
    "MAX_NESTED_SIZE",
    "MAX_NESTING",
    "MAX_PENDING",
    "MAX_PRECISE_SLOTS",
    "MAX_PROJECTION",
    "MAX_REWRAPS",
    "MAX_ROUNDS",
    "MAX_SITES_PER_NODE",
    "MAX_TUPLE_DEPTH",
    "MAX_UNIT_DEPTH",
    "MAX_UNIT_WORK",
    "MAX_UNROLLED_LOOPS",
    "MAX_VIEWS",
    "ROUND_BUDGET",
]

# ------------------------------------------------------------------- inside one function

#: The work of one analysis of one function in one calling context (statements run, calls
#: applied, the events and effects and atoms their summaries instantiate); past it, the
#: calls the function makes are unknown. Measured (the most work of one analysis): 104 over
#: the fixtures, 1,539 over the corpora's dev programs (dispatch/dev loop_else_search); in
#: real packages up to 30,656 (flax 0.12.8's `_fingerprint_recursive`, 13,000 on average over
#: its 83 analyses) and 26,557 (datasets 5.2.0). At 4,000 the summaries of flax with a small
#: file take 62 s of CPU instead of 79 s (at 20,000), with the small file's finding.
MAX_UNIT_WORK = 4_000
#: Loops are iterated at most this often; the lattice is small, so this is rarely reached.
MAX_LOOP_ROUNDS = 6
#: A `for` loop over a few known items (see containers.MAX_UNROLLED) runs its body once per
#: item; loops nested deeper than this inside such loops are iterated to a fixpoint instead,
#: so that the work stays about linear (8 x 8 body runs at most).
MAX_UNROLLED_LOOPS = 2
#: Symbolic projections longer than this become unknown (keeps summaries finite). Four
#: follow `Autodiff(like.device.inner)` after a branch on `.is_autodiff`; five a batch's
#: item through a generator of a dict's pairs (`for name, (w, batches) in splits.items()`
#: then `for x, y in batches`: +2.5% work on fixtures/, measured).
MAX_PROJECTION = 5
#: Events and effects a summary keeps for its callers; generic code that passes parameters
#: everywhere would otherwise carry every callee's sinks up the whole call graph.
MAX_PENDING = 64
#: The caller's values one path may assume no tracer (State.assumed); past it, further tests
#: prune no path at a call (a finding may be kept that the call could not reach).
MAX_ASSUMED = 4
#: Tuples nested deeper than this are summarised as unknown.
MAX_TUPLE_DEPTH = 3

# ------------------------------------------------------------------------ one value

#: Values nest inside closures (their captured values) and tuples (their items). A closure
#: that re-wraps an attribute (``model.forward = wrap(model.forward)``) captures the previous
#: closure at every call and fixpoint round, without a limit and sharing its parts, so that
#: walking it doubles in cost each time. Past this depth the closures and tuples inside
#: become unknown. Measured (every value in the heap and the summaries, each package
#: analysed whole): not yet done; 6 keeps the issue's reproducer (pkg/logging.py, three
#: re-wraps) at 0.07 s where it took 93-149 s, with every fixture's finding.
MAX_NESTING = 6
#: Atoms in one value counted through its closures and tuples (the work of substituting or
#: testing it); past this, the nested closures and tuples become unknown. Not yet measured
#: on real packages.
MAX_NESTED_SIZE = 2048
#: Closures of one function nested inside each other along one path (a decorator applied
#: twice nests two); an attribute re-wrapped at every call nests one more each time. Past
#: this, the inner ones become unknown. Not yet measured on real packages.
MAX_REWRAPS = 2

#: Precise slots (constant keys and indices) of one container; later keys share its one
#: slot, and reading one gives what that slot holds less capture tensors (so a key past
#: the bound is never taken for another key's capture tensor). A 50,000-entry dict literal:
#: its DL003 found, about linear in the entries (5,000 / 20,000 / 50,000: 2.8 / 12.1 /
#: 31.8 s CPU under load, most of it libcst's parse).
MAX_PRECISE_SLOTS = 4096

# ------------------------------------------------------------------------ whole program

#: Whole-program rounds; values only grow, so this bound is reached only on pathological code.
MAX_ROUNDS = 8
#: Unit analyses per function allowed over all rounds before the fixpoint is cut short.
ROUND_BUDGET = 4
#: Whole-program rounds once chains past MAX_UNIT_DEPTH were settled: what flows back along
#: such a chain, against the order rounds visit units in, moves on a stretch per round.
#: ROUND_BUDGET still bounds the analyses. Not yet measured on real packages.
MAX_DEEP_ROUNDS = 32
#: Instances of one class told apart by where they are made (node and calling context), up
#: to this many sites; past it, the instances made at one node share one (whatever call made
#: them), so that their number grows with the code, not with its calls. Measured: optax
#: 0.2.8 with its tests, where GradientTransformation is made at over a hundred nodes, took
#: 9,329 unit analyses and 7.7M steps of work when past it all instances of the class were one
#: (cut short by ROUND_BUDGET), 4,599 analyses and 0.62M steps with one per node.
MAX_INSTANCE_SITES = 8
#: Contexts in which one node's capture devices and containers are told apart.
MAX_SITES_PER_NODE = 8
#: Calling contexts (objects passed as arguments) a function is summarised for.
MAX_CONTEXTS = 8
#: Views (what the caller's path wrote to the heap slots a function reads, see
#: dataflow/views.py) a function is summarised for; past it, the later callers share one
#: summary, for the join of their views (what means something in one calling context only,
#: a parameter, unknown), recomputed when the join grows (optax 0.2.8 with its tests: 660 of
#: its 5,614 summaries were per slot set of such a view when it was unknown instead; numpyro's
#: handlers on `_PYRO_STACK` were lost). A view holds the caller's symbolic values, so
#: functions that recurse through a registry get a new one at every level and round.
#: Measured (distinct views of one function): at most 3 over the fixtures, 8 over the
#: corpora's dev programs; flax 0.12.8 589 (`from_state_dict`, recursing through
#: `_restore_list` and `_restore_dict`: 2,975 analyses of the dataclass one, 44 of the 88 s
#: of all summaries, in summaries that differ only in their view).
MAX_VIEWS = 16
#: Closures of one function (what it captured, told apart) it is summarised for; past it,
#: what a later closure captured reads as unknown. A function that returns a lambda calling
#: the function again (on a part of its argument) makes a new closure at every level.
#: Measured (distinct closures of one function): at most 4 over the fixtures, 5 over the
#: corpora's dev programs, 17 in flax 0.12.8 (lift.py `publish_results_fn`); numpyro 0.22.0
#: 234 (`uniform_reparam_transform`'s lambdas in contrib/nested_sampling.py), most of the
#: 8,817 unit analyses its first 150 s made.
MAX_CLOSURES = 16
#: A call analyses its callee first (and a module the modules it imports), so the analysis
#: nests as deep as the chains of calls do. Past this many nested units a callee is treated
#: as in progress and analysed afterwards by the driver, before the units that waited for it
#: again, so that the depth of Python's stack (and its recursion limit) never bounds the
#: length of a chain. Nothing is lost (the units that waited are analysed again); the cost is
#: those analyses. Measured (deepest nesting while analysing each package whole): not yet done; a ring of 1,000 recursive functions finds its
#: DL001 in 1,321 unit analyses with it (main: internal error from about 750).
MAX_UNIT_DEPTH = 200
