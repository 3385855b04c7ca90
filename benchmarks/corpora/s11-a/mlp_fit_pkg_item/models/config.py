"""Frozen model configuration."""
from dataclasses import dataclass


@dataclass(frozen=True)
class ModelConfig:
    sizes: tuple = (4, 8, 1)
    device: str = "autodiff:numpy"
    seed: int = 0

    @classmethod
    def small(cls):
        return cls(sizes=(4, 4, 1))
