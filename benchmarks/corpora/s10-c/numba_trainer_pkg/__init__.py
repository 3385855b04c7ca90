"""A tiny trainer package whose backend is chosen in a config module."""
