"""Smoke-test a linear classifier on the fast backend picked by a helper, a few batches only."""
from dispatch_lint import runtime as dispatch

MAX_BATCHES = 2


def fast_device(enabled=True):
    if enabled:
        return dispatch.Numba()
    return dispatch.NumPy()


class Linear:
    def __init__(self, n_in, n_out, device):
        self.weight = dispatch.rand((n_in, n_out), seed=0, device=device)
        self.bias = dispatch.zeros((n_out,), device=device)

    def forward(self, x):
        return x @ self.weight + self.bias


class Classifier:
    def __init__(self, device):
        self.layer = Linear(6, 3, device)

    def __call__(self, x):
        return self.layer.forward(x).relu().max(axis=1)


def main():
    model = Classifier(fast_device())
    batches = [dispatch.rand((4, 6), seed=s) for s in range(3)]
    scores = []
    for i, batch in enumerate(batches):
        if i >= MAX_BATCHES:
            break
        out = model(batch)  # expect: DL008
        scores.append(out.mean().item())
        print(f"batch {i}: mean score {scores[-1]:.3f}")
    return {"mean_score": sum(scores) / len(scores)}


if __name__ == "__main__":
    main()
