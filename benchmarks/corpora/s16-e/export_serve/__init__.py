"""Export a two-layer scorer and serve the exported program on Numba."""
