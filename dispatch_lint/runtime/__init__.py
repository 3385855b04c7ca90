"""The dispatch tensor runtime (being built: see issue 2)."""
