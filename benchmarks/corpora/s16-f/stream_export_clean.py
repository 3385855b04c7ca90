"""Stream statistics on real data, then switch the active device to capture and export."""

from dispatch_lint import runtime as dispatch

_ACTIVE = dispatch.NumPy()
REDUCERS = {
    "mean": lambda t: t.mean(axis=0),
    "rms": lambda t: (t * t).mean(axis=0).sqrt(),
    "peak": lambda t: t.abs().max(axis=0),
}


def use_capture():
    global _ACTIVE
    _ACTIVE = dispatch.Capture()
    return _ACTIVE


def chunks(count, width):
    for seed in range(count):
        yield dispatch.rand((4, width), seed=seed, device=_ACTIVE)


def stats(t, names=("mean", "rms")):
    return {name: REDUCERS.get(name, REDUCERS["mean"])(t) for name in names}


def main():
    history = {}
    for chunk in chunks(3, 2):
        for name, value in stats(chunk, ("mean", "rms", "peak")).items():
            history.setdefault(name, []).append(value.tolist())
    print("real stats:", history)
    device = use_capture()
    x = dispatch.placeholder((4, 2), device=device, name="x")
    outputs = stats(x)
    program = dispatch.export(*outputs.values())
    result = program.run({"x": dispatch.rand((4, 2), seed=5).numpy()})
    print(dict(zip(outputs, (r.tolist() for r in result))))


if __name__ == "__main__":
    main()
