"""Resolve deployment targets from a list of configs and run each one."""
