"""A tiny trainer whose callbacks register themselves by event name."""
from . import builtin  # noqa: F401  (registers the built-in callbacks)
