"""Export a ranking scorer and check that eager and traced scores land on the serving backend."""
from dispatch_lint import runtime as dispatch


def runtime_device(name):
    return {"numpy": dispatch.NumPy(), "numba": dispatch.Numba()}.get(name, dispatch.NumPy())


def to_runtime(t, name):
    return t.to_device(runtime_device(name))


class Ranker:
    def __init__(self, device):
        self.query = dispatch.rand((4,), seed=3).to_device(device)

    def score(self, docs):
        return (docs * self.query).sum(axis=1)


def main():
    cap = dispatch.Capture()
    scores = Ranker(cap).score(dispatch.placeholder((5, 4), device=cap, name="docs"))
    program = dispatch.export(scores)
    docs = dispatch.rand((5, 4), seed=8)
    results = {"eager": Ranker(dispatch.NumPy()).score(docs), "traced": scores}
    report = {}
    for name, t in results.items():
        if t.shape != (5,):
            continue
        moved = to_runtime(t, "numba")  # expect: DL002
        report[name] = f"{moved}"
    print(f"program inputs: {sorted(program.inputs)}")
    return report


if __name__ == "__main__":
    main()
