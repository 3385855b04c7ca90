"""Model heads built by name from a registry that the head modules fill."""
