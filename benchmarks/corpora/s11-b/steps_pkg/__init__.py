"""A small training package: optimizers, losses and a loop with hooks."""
