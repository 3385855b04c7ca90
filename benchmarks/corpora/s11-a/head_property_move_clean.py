"""A classifier head whose weight property moves real weights to the eval device and leaves capture ones."""
from dispatch_lint import runtime as dispatch


class Head:
    def __init__(self, weight, bias, eval_device=None):
        self._weight = weight
        self._bias = bias
        self.eval_device = eval_device or dispatch.NumPy()

    @property
    def weight(self):
        if self._weight.is_capture:
            return self._weight
        return self._weight.to_device(self.eval_device)

    def logits(self, features):
        return features @ self.weight + self._bias


def main():
    real = Head(dispatch.rand((8, 3), seed=0, device="numba"), dispatch.zeros((3,)))
    scores = real.logits(dispatch.rand((2, 8), seed=1))
    print("argmax", scores.max(axis=1).tolist())

    cap = dispatch.Capture()
    exported = Head(dispatch.placeholder((8, 3), device=cap, name="w"), dispatch.zeros((3,), device=cap))
    x = dispatch.placeholder((2, 8), device=cap, name="x")
    program = dispatch.export(exported.logits(x))
    out = program.run({"w": dispatch.ones((8, 3)), "x": dispatch.ones((2, 8))})
    print(out.tolist())


if __name__ == "__main__":
    main()
