"""Training steps looked up by name from a registry that modules fill with a decorator."""
