"""Exporters for each model head, registered by decorator across modules."""
from . import heads  # noqa: F401  (registers the exporters)
