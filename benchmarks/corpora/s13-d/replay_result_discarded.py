"""Export a softmax scorer, run it on a batch of logits, and print the top class per row."""
import numpy as np

from dispatch_lint import runtime as dispatch


def softmax(z):
    e = (z - z.max(axis=1).reshape((z.shape[0], 1))).exp()
    return e / e.sum(axis=1).reshape((z.shape[0], 1))


def main():
    cap = dispatch.Capture()
    logits = dispatch.placeholder((4, 3), device=cap, name="logits")
    probs = softmax(logits)
    program = dispatch.export(probs)
    print("exported", program)

    batch = np.arange(12, dtype=np.float32).reshape(4, 3) / 6.0
    program.run({"logits": batch})
    table = probs.numpy()  # expect: DL003
    top = [int(np.argmax(row)) for row in table]
    print("top classes", top)
    return top


if __name__ == "__main__":
    main()
