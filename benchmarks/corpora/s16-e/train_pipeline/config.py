"""Training configuration and the synthetic data set it describes."""

from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class TrainConfig:
    device: str = "autodiff:numpy"
    lr: float = 0.1
    epochs: int = 5
    batch_size: int = 8
    n_batches: int = 4
    true_weights: list = field(default_factory=lambda: [[1.5], [-0.5], [2.0]])


def make_batches(cfg: TrainConfig) -> list:
    """Plain NumPy batches of (features, targets)."""
    target_w = dispatch.tensor(cfg.true_weights)
    batches = []
    for i in range(cfg.n_batches):
        x = dispatch.rand((cfg.batch_size, 3), seed=100 + i)
        batches.append((x, x @ target_w + 0.25))
    return batches
