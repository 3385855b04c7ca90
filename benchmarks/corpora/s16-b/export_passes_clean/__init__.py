"""Export a scorer through graph passes registered from several modules."""
