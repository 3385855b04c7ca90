"""Build a layer after switching to fast kernels and run a forward pass on a batch."""
import numpy as np

from dispatch_lint import runtime as dispatch
from numba_trainer_pkg import config
from numba_trainer_pkg.model import Linear


def main():
    batch = dispatch.tensor(np.ones((2, 4), dtype=np.float32), device=config.DEVICE)
    warm = Linear(4, 3)
    print("warm-up", warm.forward(batch).sum().item())
    config.use_fast_kernels()
    layer = Linear(4, 3)
    out = layer.forward(batch)  # expect: DL008
    print(out)


if __name__ == "__main__":
    main()
