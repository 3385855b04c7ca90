"""The bounds that keep the analysis finite and its cost about linear in the code.

Every bound trades precision for time in one place; all of them are here, so that a reader
sees at once what the analysis gives up and where. Past a bound, values widen to unknown
(never to capture), so a bound can cost a finding but never invent one.
"""

from __future__ import annotations

__all__ = [
    "MAX_CONTEXTS",
    "MAX_INSTANCE_SITES",
    "MAX_LOOP_ROUNDS",
    "MAX_PENDING",
    "MAX_PROJECTION",
    "MAX_ROUNDS",
    "MAX_SITES_PER_NODE",
    "MAX_TUPLE_DEPTH",
    "ROUND_BUDGET",
]

# ------------------------------------------------------------------- inside one function

#: Loops are iterated at most this often; the lattice is small, so this is rarely reached.
MAX_LOOP_ROUNDS = 6
#: Symbolic projections longer than this become unknown (keeps summaries finite). Four
#: follow `Autodiff(like.device.inner)` after a branch on `.is_autodiff`.
MAX_PROJECTION = 4
#: Events and effects a summary keeps for its callers; generic code that passes parameters
#: everywhere would otherwise carry every callee's sinks up the whole call graph.
MAX_PENDING = 64
#: Tuples nested deeper than this are summarised as unknown.
MAX_TUPLE_DEPTH = 3

# ------------------------------------------------------------------------ whole program

#: Whole-program rounds; values only grow, so this bound is reached only on pathological code.
MAX_ROUNDS = 8
#: Unit analyses per function allowed over all rounds before the fixpoint is cut short.
ROUND_BUDGET = 4
#: Instances of one class told apart by where they are made, up to this many sites.
MAX_INSTANCE_SITES = 8
#: Contexts in which one node's capture devices and containers are told apart.
MAX_SITES_PER_NODE = 8
#: Calling contexts (objects passed as arguments) a function is summarised for.
MAX_CONTEXTS = 8
