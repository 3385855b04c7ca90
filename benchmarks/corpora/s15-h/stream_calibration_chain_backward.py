"""Fine-tune a linear probe on streamed batches, with a calibration batch chained onto the stream."""
import itertools

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def batches(features, targets, size):
    for start in range(0, len(features), size):
        x = dispatch.tensor(features[start:start + size], device=AD)
        y = dispatch.tensor(targets[start:start + size], device=AD)
        yield x, y


def calibration_batch(width, rows=2):
    cap = dispatch.Capture()
    x = dispatch.placeholder((rows, width), device=cap, name="calib_x")
    y = dispatch.zeros((rows,)).to_device(cap)
    return x, y


def main():
    features = [[0.1 * (i + j) for j in range(3)] for i in range(8)]
    targets = [float(i % 2) for i in range(8)]
    w = dispatch.tensor([0.2, -0.1, 0.05], device=AD).require_grad()
    stream = itertools.chain(batches(features, targets, 3), [calibration_batch(3)])
    history = []
    for step, (x, y) in enumerate(itertools.islice(stream, 4)):
        weights = w if x.device == w.device else w.inner().to_device(x.device)
        loss = ((x @ weights - y) ** 2).mean()
        grads = loss.backward()  # expect: DL001
        w = AD.wrap(w.inner() - 0.1 * w.grad(grads)).require_grad()
        history.append(f"step {step}: loss {loss.item():.4f}")
    print("\n".join(history))
    return w


if __name__ == "__main__":
    main()
