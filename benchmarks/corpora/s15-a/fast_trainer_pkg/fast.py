"""A trainer that runs its kernels on Numba for larger batches."""
from dispatch_lint import runtime as dispatch

from fast_trainer_pkg.base import Trainer


class FastTrainer(Trainer):
    def __init__(self, features, lr=0.1, batch=64):
        super().__init__(features, lr)
        self.batch = batch

    def make_device(self):
        return dispatch.Numba()

    def loss(self, x, y):
        pred = (x @ self.weight).tanh()
        return ((pred - y) ** 2).mean()
