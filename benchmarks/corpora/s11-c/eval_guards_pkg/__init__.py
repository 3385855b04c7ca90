"""Evaluate a classifier and its exported twin, keeping traced values out of the numbers."""
