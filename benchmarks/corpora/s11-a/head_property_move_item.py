"""A classifier head whose property returns its weight moved to the evaluation device."""
from dispatch_lint import runtime as dispatch


class Head:
    def __init__(self, weight, bias, eval_device=None):
        self._weight = weight
        self._bias = bias
        self.eval_device = eval_device or dispatch.NumPy()

    @property
    def weight(self):
        return self._weight.to_device(self.eval_device)

    @property
    def num_classes(self):
        return self._weight.shape[1]

    def logits(self, features):
        return features @ self.weight + self._bias


def main():
    cap = dispatch.Capture()
    w = dispatch.placeholder((8, 3), device=cap, name="w")
    b = dispatch.zeros((3,), device=cap)
    head = Head(w, b)
    print("classes:", head.num_classes)
    features = dispatch.rand((2, 8), seed=3)
    scores = head.logits(features)  # expect: DL002
    print(scores)


if __name__ == "__main__":
    main()
