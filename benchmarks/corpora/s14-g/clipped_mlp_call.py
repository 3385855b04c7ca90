"""A two-layer MLP module with activation clipping, traced for export after a smoke test."""
from dispatch_lint import runtime as dispatch


class Layer:
    def __init__(self, fan_in, fan_out, seed, device):
        self.w = dispatch.rand((fan_in, fan_out), seed=seed).to_device(device)
        self.b = dispatch.zeros((fan_out,)).to_device(device)

    def __call__(self, x):
        return (x @ self.w + self.b).relu()


class ClippedMLP:
    def __init__(self, sizes, device, clip=4.0):
        self.layers = [Layer(a, b, i, device) for i, (a, b) in enumerate(zip(sizes, sizes[1:]))]
        self.clip = clip

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        if self.clip is not None and x.max() > self.clip:
            x = x * (self.clip / x.max().item())
        return x


def main():
    host = ClippedMLP([5, 8, 2], dispatch.NumPy())
    smoke = host(dispatch.ones((4, 5)))
    print("smoke", smoke.shape, smoke.sum().item())

    cap = dispatch.Capture()
    traced_model = ClippedMLP([5, 8, 2], cap, clip=2.5)
    x = dispatch.placeholder((4, 5), device=cap, name="x")
    out = traced_model(x)  # expect: DL003
    program = dispatch.export(out)
    return program.run({"x": dispatch.ones((4, 5))})


if __name__ == "__main__":
    main()
