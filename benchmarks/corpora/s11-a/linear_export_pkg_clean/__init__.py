"""Train a linear model on the configured device and export it on the configured capture device."""
from .config import RunConfig
from .export import export_model
from .model import Linear

__all__ = ["Linear", "RunConfig", "export_model"]
