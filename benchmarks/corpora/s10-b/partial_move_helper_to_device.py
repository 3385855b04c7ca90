"""Moves a batch of traced activations to the host with a partial of a transfer helper."""
import functools

from dispatch_lint import runtime as dispatch


def move_to(t, device, name="tensor"):
    if t.device == device:
        return t
    return t.to_device(device)


def trace_block(cap, width):
    x = dispatch.placeholder((2, width), device=cap, name="x")
    h = dispatch.relu(x @ dispatch.rand((width, width), seed=0).to_device(cap))
    return [x, h, dispatch.sigmoid(h)]


def main():
    cap = dispatch.Capture()
    activations = trace_block(cap, 4)
    to_capture = functools.partial(move_to, device=cap)
    to_host = functools.partial(move_to, device=dispatch.NumPy())
    pinned = [to_capture(a) for a in activations]
    program = dispatch.export(pinned[-1])
    host = [to_host(a, name=f"act{i}") for i, a in enumerate(pinned)]  # expect: DL002
    return program, host


if __name__ == "__main__":
    main()
