"""Backend selection for the trainer."""
DEVICE = "numpy"


def use_fast_kernels():
    global DEVICE
    DEVICE = "numba"
