"""Pluggable losses for a regression trainer, registered by name with a decorator."""
