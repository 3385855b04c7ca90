"""Route serving requests (traces, dense batches, token lookups) with structural pattern matching."""

from dataclasses import dataclass

from dispatch_lint import runtime as dispatch


@dataclass
class DenseBatch:
    features: object
    scale: float = 1.0


@dataclass
class TraceRequest:
    shape: tuple
    name: str = "x"


class Router:
    def __init__(self, width):
        self.weight = dispatch.rand((width, 2), seed=11)
        self.bias = dispatch.tensor([0.5, -0.5])
        self.programs = []

    def handle(self, request):
        match request:
            case DenseBatch(features=x, scale=s) if s != 1.0:
                return (x * s) @ self.weight + self.bias
            case DenseBatch(features=x):
                return x @ self.weight + self.bias
            case TraceRequest(shape=shape, name=name):
                graph = dispatch.Capture()
                x = dispatch.placeholder(shape, device=graph, name=name)
                out = x @ self.weight.to_device(graph) + self.bias.to_device(graph)
                self.programs.append(dispatch.export(out))
                return out
            case {"kind": "tokens", "ids": ids, **rest}:
                table = rest.get("table", self.weight)
                return table * dispatch.tensor(ids, dtype="float32").reshape(-1, 1).sum()
            case {"kind": "residual", "input": x, "skip": skip}:
                return x @ self.weight + skip
            case _:
                raise ValueError(f"unroutable request: {request!r}")


def main():
    router = Router(width=3)
    dense = router.handle(DenseBatch(dispatch.ones((2, 3)), scale=0.5))
    plain = router.handle(DenseBatch(dispatch.ones((2, 3))))
    traced = router.handle(TraceRequest(shape=(2, 3)))
    tokens = router.handle({"kind": "tokens", "ids": [1, 2]})
    print(dense.tolist(), plain.tolist(), tokens.shape, traced)
    residual = {"kind": "residual", "input": dispatch.ones((2, 3)), "skip": traced}
    print(router.handle(residual))  # expect: DL008


if __name__ == "__main__":
    main()
