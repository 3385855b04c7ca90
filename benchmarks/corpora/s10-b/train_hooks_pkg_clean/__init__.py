"""Training hooks registered by decorator in one module and fired by a trainer in another."""
