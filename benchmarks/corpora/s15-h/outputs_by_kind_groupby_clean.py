"""Collect eval outputs from live and traced heads, materialise the traced ones, and dump them."""
import itertools

from dispatch_lint import runtime as dispatch


def heads(x, cap):
    traced = dispatch.placeholder(x.shape, device=cap, name="x")
    yield "live_relu", x.relu()
    yield "traced_relu", traced.relu()
    yield "live_sig", x.sigmoid()
    yield "traced_sig", traced.sigmoid()


def main():
    x = dispatch.tensor([[-1.0, 0.5], [2.0, -0.25]])
    outputs = list(heads(x, dispatch.Capture()))
    ordered = sorted(outputs, key=lambda kv: kv[1].is_capture)
    materialized = []
    for traced, group in itertools.groupby(ordered, key=lambda kv: kv[1].is_capture):
        names, tensors = zip(*group)
        if traced:
            tensors = dispatch.export(*tensors).run({"x": x})
        materialized.append(zip(names, tensors))
    dump = {name: t.to_device("numpy").tolist() for name, t in itertools.chain.from_iterable(materialized)}
    for name in sorted(dump, key=len):
        print(f"{name:<12} {dump[name]}")
    return dump


if __name__ == "__main__":
    main()
