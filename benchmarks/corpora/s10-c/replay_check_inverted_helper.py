"""Compare exported outputs with reference values, replaying those a helper says need it."""
import numpy as np

from dispatch_lint import runtime as dispatch


def already_replayed(t):
    return t.is_capture


def max_abs_error(outputs, references, inputs):
    worst = 0.0
    for name, out in outputs.items():
        if already_replayed(out):
            value = out.numpy()
        else:
            value = dispatch.replay(out, inputs).numpy()
        worst = max(worst, float(np.abs(value - references[name]).max()))
    return worst


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((3,), device=cap, name="x")
    outputs = {"act": x.tanh(), "gate": x.sigmoid()}
    data = np.array([0.0, 1.0, -1.0], dtype=np.float32)
    references = {"act": np.tanh(data), "gate": 1.0 / (1.0 + np.exp(-data))}
    print("max abs error", max_abs_error(outputs, references, {"x": data}))  # expect: DL003


if __name__ == "__main__":
    main()
