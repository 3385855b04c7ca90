"""A small MLP training package: models, a fit step, and an entry point."""
