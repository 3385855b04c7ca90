"""Summarise eval outputs, filtering out the traced placeholders before reading values."""
from dispatch_lint import runtime as dispatch


def forward(w, x):
    return dispatch.sigmoid(x @ w).mean()


def main():
    w = dispatch.rand((3, 1), seed=0)
    cap = dispatch.Capture()
    outputs = [forward(w, dispatch.rand((8, 3), seed=s)) for s in range(3)]
    traced = forward(w.to_device(cap), dispatch.placeholder((8, 3), device=cap, name="x"))
    outputs.insert(1, traced)

    real = list(filter(lambda t: not dispatch.is_capture(t), outputs))
    values = sorted(map(lambda t: t.item(), real))
    print("median", values[len(values) // 2], "traced", sum(map(dispatch.is_capture, outputs)))


if __name__ == "__main__":
    main()
