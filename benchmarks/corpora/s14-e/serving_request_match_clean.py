"""Serve scoring requests described as dicts, replaying traced heads before answering."""
import numpy as np

from dispatch_lint import runtime as dispatch

WEIGHTS = dispatch.tensor([0.2, -0.5, 0.9])


def traced_head():
    cap = dispatch.Capture()
    x = dispatch.placeholder((3,), device=cap, name="x")
    return (x * WEIGHTS.to_device(cap)).sigmoid().sum()


def answer(request):
    match request:
        case {"kind": "eager", "values": [*values]}:
            out = (dispatch.tensor(values) * WEIGHTS).sigmoid().sum()
        case {"kind": "traced", "values": values, "device": str(name)}:
            out = dispatch.replay(traced_head(), {"x": np.asarray(values, dtype=np.float32)},
                                  device=name)
        case {"kind": "traced", "values": values}:
            out = traced_head()
            out = dispatch.replay(out, {"x": np.asarray(values, dtype=np.float32)})
        case {"kind": kind}:
            return {"error": f"unsupported kind {kind}"}
        case _:
            return {"error": "malformed request"}
    return {"score": round(out.item(), 4)}


def main():
    requests = [
        {"kind": "eager", "values": [1.0, 2.0, 3.0]},
        {"kind": "traced", "values": [1.0, 2.0, 3.0]},
        {"kind": "traced", "values": [0.5, 0.5, 0.5], "device": "numpy"},
        {"kind": "batch"},
    ]
    replies = [answer(r) for r in requests]
    assert replies[0] == replies[1]
    return replies


if __name__ == "__main__":
    main()
