"""A two-layer MLP of __call__ modules whose weights are moved onto the capture device before tracing."""
from dispatch_lint import runtime as dispatch


class Dense:
    def __init__(self, fan_in, fan_out, seed, device=None):
        self.w = dispatch.rand((fan_in, fan_out), seed=seed, device=device) * 0.1
        self.b = dispatch.zeros((fan_out,), device=device)

    def to(self, device):
        self.w = self.w.to_device(device)
        self.b = self.b.to_device(device)
        return self

    def __call__(self, x):
        return x @ self.w + self.b


class MLP:
    def __init__(self, sizes, device=None):
        self.layers = [Dense(a, b, seed=i, device=device) for i, (a, b) in enumerate(zip(sizes, sizes[1:]))]

    def to(self, device):
        self.layers = [layer.to(device) for layer in self.layers]
        return self

    def __call__(self, x):
        for layer in self.layers[:-1]:
            x = layer(x).relu()
        return self.layers[-1](x)


def main():
    model = MLP([6, 16, 2])
    print("sanity", model(dispatch.ones((1, 6))).tolist())
    cap = dispatch.Capture()
    x = dispatch.placeholder((4, 6), device=cap, name="x")
    logits = model.to(cap)(x)
    program = dispatch.export(logits)
    restored = dispatch.Program.from_json(program.to_json())
    out = restored.run({"x": dispatch.ones((4, 6))}, device="numba")
    print(out.shape, out.device)


if __name__ == "__main__":
    main()
