"""Layers that take their device from a module-level registry, and checkpointing."""
from . import registry
from .layers import Dense

__all__ = ["Dense", "registry"]
