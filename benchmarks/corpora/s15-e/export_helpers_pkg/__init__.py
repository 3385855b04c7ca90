"""Export a head with settings and output helpers that share one config module."""
