"""A linear layer whose weights live on the configured backend."""
import numpy as np

from dispatch_lint import runtime as dispatch
from numba_trainer_pkg import config


class Linear:
    def __init__(self, dim_in, dim_out):
        rng = np.random.default_rng(0)
        self.w = dispatch.tensor(rng.normal(size=(dim_in, dim_out)), device=config.DEVICE)

    def forward(self, x):
        return (x @ self.w).relu()
