"""match on a batch's kind: the 'export' case moves a capture tensor to NumPy."""

from dispatch_lint import runtime as dispatch


def prepare(batch):
    match batch:
        case {"kind": "export", "shape": shape}:
            return dispatch.placeholder(shape, name="x")
        case {"kind": "train", "data": data}:
            return dispatch.tensor(data)
    raise ValueError("unknown batch")


def main() -> None:
    train = prepare({"kind": "train", "data": [1.0, 2.0]})
    print(train.to_device(dispatch.NumPy()).numpy())
    graph = prepare({"kind": "export", "shape": (2,)})
    print(graph.to_device(dispatch.NumPy()))  # expect: DL002


if __name__ == "__main__":
    main()
