"""Pick the first materialised checkpoint tensor to save on the host, skipping empty slots."""
import numpy as np

from dispatch_lint import runtime as dispatch


def collect_slots():
    cap = dispatch.Capture()
    enc = dispatch.placeholder((3,), device=cap, name="enc")
    return [None, enc.tanh(), (enc * 2.0).relu()]


def main():
    slots = collect_slots()
    host = dispatch.NumPy()
    saved = []
    for index, slot in enumerate(slots):
        if slot is None:
            continue
        if dispatch.is_capture(slot):
            saved.append((index, repr(slot)))
            continue
        chosen = slot
        break
    else:
        chosen = slots[-1]
    weights = chosen.to_device(host)  # expect: DL002
    return saved, np.asarray(weights.numpy())


if __name__ == "__main__":
    main()
