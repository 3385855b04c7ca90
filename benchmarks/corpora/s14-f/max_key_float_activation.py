"""Report the strongest activation per layer of a small MLP and its traced twin."""
from dispatch_lint import runtime as dispatch

LAYER_SIZES = [(4, 6), (6, 3)]


def forward(x, layers, collect):
    for index, w in enumerate(layers):
        x = (x @ w).relu()
        collect(f"layer{index}", x.max())
    return x


def make_layers(device=None):
    return [dispatch.rand(shape, seed=n, device=device) for n, shape in enumerate(LAYER_SIZES)]


def main():
    peaks = {}
    record = peaks.setdefault
    forward(dispatch.rand((2, 4), seed=9), make_layers(), lambda k, v: record(k, []).append(v))

    cap = dispatch.Capture()
    traced_layers = [w.to_device(cap) for w in make_layers()]
    x = dispatch.placeholder((2, 4), device=cap, name="x")
    out = forward(x, traced_layers, lambda k, v: record(k, []).append(v))
    program = dispatch.export(out)
    print("exported inputs:", program.run({"x": dispatch.rand((2, 4), seed=9)}).shape)

    summary = {}
    for layer, values in sorted(peaks.items(), key=lambda kv: kv[0]):
        summary[layer] = max(values, key=float)  # expect: DL003
    print(summary)
    return summary


if __name__ == "__main__":
    main()
