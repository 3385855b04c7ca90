"""Compute a calibration error for exported and eager predictions against their labels."""
from dispatch_lint import runtime as dispatch


def calibration_error(probs, labels):
    if dispatch.is_capture(probs):
        return None
    return abs(probs.mean().item() - labels.mean().item())


def model(x, weight):
    return (x @ weight).sigmoid().sum(axis=1)


def main():
    weight = dispatch.rand((3, 1), seed=2)
    x = dispatch.rand((10, 3), seed=8)
    labels = (x.sum(axis=1) > 1.5) * 1.0
    eager = calibration_error(model(x, weight), labels)

    cap = dispatch.Capture()
    xc = dispatch.placeholder((10, 3), device=cap, name="x")
    replayed = dispatch.replay(model(xc, weight.to_device(cap)), {"x": x})
    traced_labels = (xc.sum(axis=1) > 1.5) * 1.0
    exported = calibration_error(replayed, traced_labels)  # expect: DL003
    print(f"eager ece {eager:.4f}, export ece {exported:.4f}")
    return eager, exported


if __name__ == "__main__":
    main()
