"""Scoring heads registered by name and blended into one ensemble score."""
