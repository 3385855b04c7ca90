"""Checkpointing of model state to host arrays."""
