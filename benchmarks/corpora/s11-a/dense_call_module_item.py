"""A two-layer MLP built from __call__ modules, traced on a placeholder for export."""
from dispatch_lint import runtime as dispatch


class Dense:
    def __init__(self, fan_in, fan_out, seed, device=None):
        self.w = dispatch.rand((fan_in, fan_out), seed=seed, device=device) * 0.1
        self.b = dispatch.zeros((fan_out,), device=device)

    def __call__(self, x):
        return x @ self.w + self.b


class MLP:
    def __init__(self, sizes, device=None):
        self.layers = [Dense(a, b, seed=i, device=device) for i, (a, b) in enumerate(zip(sizes, sizes[1:]))]

    def __call__(self, x):
        for layer in self.layers[:-1]:
            x = layer(x).relu()
        return self.layers[-1](x)


def main():
    model = MLP([6, 16, 2])
    sanity = model(dispatch.ones((1, 6)))
    print("sanity", sanity.tolist())
    cap = dispatch.Capture()
    x = dispatch.placeholder((4, 6), device=cap, name="x")
    logits = model(x)  # expect: DL008
    program = dispatch.export(logits)
    print(program.to_json()[:60])


if __name__ == "__main__":
    main()
