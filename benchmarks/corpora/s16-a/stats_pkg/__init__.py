"""Running loss metrics for training and for an exported evaluation graph."""
