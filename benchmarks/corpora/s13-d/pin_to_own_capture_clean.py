"""Pin every intermediate of a traced encoder to the device its input was captured on."""
from dispatch_lint import runtime as dispatch


class Encoder:
    def __init__(self, width):
        self.w1 = dispatch.rand((width, width), seed=11)
        self.w2 = dispatch.rand((width, 2), seed=12)

    def pinned(self, t, like):
        return t.to_device(like.device)

    def __call__(self, x):
        hidden = (x @ self.pinned(self.w1, x)).relu()
        hidden = self.pinned(hidden, x)
        return self.pinned(hidden @ self.pinned(self.w2, x), x)


def main():
    encoder = Encoder(4)
    cap = dispatch.Capture()
    x = dispatch.placeholder((3, 4), device=cap, name="x")
    out = encoder(x).to_device(cap)
    program = dispatch.Program.from_json(dispatch.export(out).to_json())
    real = program.run({"x": dispatch.ones((3, 4))})
    eager = encoder(dispatch.ones((3, 4)))
    gap = (real - eager).abs().max().item()
    print(f"export gap {gap:.2e}")
    return gap


if __name__ == "__main__":
    main()
