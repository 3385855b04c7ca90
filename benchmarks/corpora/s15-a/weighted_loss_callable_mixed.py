"""Score predictions with a callable weighted loss whose class weights live on Numba."""
import numpy as np

from dispatch_lint import runtime as dispatch


class WeightedMSE:
    def __init__(self, class_weights, device="numba"):
        self.device = dispatch.device(device)
        self.weights = dispatch.from_numpy(np.asarray(class_weights, dtype=np.float32), device=self.device)

    def __call__(self, pred, target):
        err = (pred - target) ** 2
        return (err * self.weights).mean()

    def __repr__(self):
        return f"WeightedMSE(device={self.device!r})"


def predict(x, w):
    return (x @ w).relu()


def main():
    loss_fn = WeightedMSE([1.0, 2.0, 0.5])
    x = dispatch.rand((6, 4), seed=1)
    w = dispatch.rand((4, 3), seed=2)
    target = dispatch.zeros((6, 3))
    pred = predict(x, w)
    loss = loss_fn(pred, target)  # expect: DL008
    print(loss_fn, "loss", loss.item())
    return loss.item()


if __name__ == "__main__":
    main()
