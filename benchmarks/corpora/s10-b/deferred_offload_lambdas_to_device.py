"""Queues host offloads of layer outputs as closures and runs them after the forward pass."""
from dispatch_lint import runtime as dispatch


def make_offloader(target):
    pending = []

    def schedule(name, t):
        pending.append((name, lambda t=t: t.to_device(target)))  # expect: DL002

    def flush():
        done = {name: thunk() for name, thunk in pending}
        pending.clear()
        return done

    return schedule, flush


def forward(x, layers, on_output):
    for i, w in enumerate(layers):
        x = dispatch.relu(x @ w)
        on_output(f"layer{i}", x)
    return x


def main():
    layers = [dispatch.rand((4, 4), seed=i) for i in range(3)]
    schedule, flush = make_offloader(dispatch.NumPy())
    forward(dispatch.rand((2, 4), seed=9), layers, schedule)
    print(sorted(flush()))
    cap = dispatch.Capture()
    out = forward(dispatch.placeholder((2, 4), device=cap, name="x"),
                  [w.to_device(cap) for w in layers], schedule)
    program = dispatch.export(out)
    return program, flush()


if __name__ == "__main__":
    main()
