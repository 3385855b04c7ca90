"""Save trained autodiff weights as a dict of host arrays for the checkpoint."""
import numpy as np

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def main():
    weights = {
        "enc.w": AD.wrap(dispatch.rand((4, 2), seed=0)).require_grad(),
        "enc.b": AD.wrap(dispatch.zeros((2,))).require_grad(),
    }
    x = dispatch.ones((3, 4), device=AD)
    loss = (x @ weights["enc.w"] + weights["enc.b"]).relu().sum()
    grads = loss.backward()
    weights = {k: AD.wrap(v.inner() - 0.01 * v.grad(grads)) for k, v in weights.items()}
    host = {k: v.to_device(dispatch.NumPy()) for k, v in weights.items()}  # expect: DL007
    arrays = {k: np.asarray(v) for k, v in host.items()}
    return arrays


if __name__ == "__main__":
    main()
