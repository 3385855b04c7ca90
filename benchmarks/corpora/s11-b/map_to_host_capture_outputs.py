"""Export a two-head model, run it, and copy each head's output to the host with map()."""
from dispatch_lint import runtime as dispatch


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((4, 3), device=cap, name="x")
    heads = {"cls": dispatch.rand((3, 2), seed=0), "reg": dispatch.rand((3, 1), seed=1)}
    outputs = {name: x @ w.to_device(cap) for name, w in heads.items()}
    program = dispatch.export(*outputs.values())
    results = program.run({"x": dispatch.rand((4, 3), seed=9)}, device="numba")

    host = dict(zip(outputs, map(lambda t: t.to_device(dispatch.NumPy()), results)))
    print({name: t.shape for name, t in host.items()})
    fused = list(map(lambda t: t.to_device(dispatch.Numba()), outputs.values()))  # expect: DL002
    print(len(fused))


if __name__ == "__main__":
    main()
