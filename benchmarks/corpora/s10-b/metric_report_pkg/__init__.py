"""Metric reporters registered by decorator across modules and run over a captured eval graph."""
