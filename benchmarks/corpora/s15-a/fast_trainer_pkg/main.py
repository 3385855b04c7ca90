"""Train with the reference trainer and the fast one on the same batch and compare losses."""
from dispatch_lint import runtime as dispatch

from fast_trainer_pkg.base import Trainer
from fast_trainer_pkg.fast import FastTrainer


def make_batch(rows, features, device):
    x = dispatch.rand((rows, features), seed=21, device=device)
    y = (x.sum(axis=1, keepdims=True) * 0.5).tanh()
    return x, y


def main():
    reference = Trainer(4)
    x, y = make_batch(16, 4, reference.device)
    ref_losses = [reference.step(x, y).item() for _ in range(3)]
    fast = FastTrainer(4, batch=16)  # expect: DL006
    fx, fy = make_batch(16, 4, fast.device)
    fast_loss = fast.step(fx, fy)
    return ref_losses, fast_loss.item()
