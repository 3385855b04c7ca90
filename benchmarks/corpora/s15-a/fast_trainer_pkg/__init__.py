"""Trainers for a small linear model: the reference one and a faster Numba variant."""
