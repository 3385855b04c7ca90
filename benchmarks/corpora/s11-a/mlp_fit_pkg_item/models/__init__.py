"""Model definitions re-exported for the training entry point."""
from .config import ModelConfig
from .mlp import MLP

__all__ = ["MLP", "ModelConfig"]
