"""Dispatch logged records by kind: sum losses, collect traces, and check shapes."""
from dispatch_lint import runtime as dispatch


def collect_records():
    w = dispatch.rand((4,), seed=9)
    records = [{"kind": "loss", "value": (w * w).mean()}]
    records.append({"kind": "shape", "value": w.shape})
    x = dispatch.placeholder((4,), name="x")
    traced = (x * w.to_device(x.device)).sum()
    records.append({"kind": "trace", "value": traced})
    records.append({"kind": "loss", "value": traced.abs()})
    return records


def main():
    total = 0.0
    traces = []
    shapes = []
    for record in collect_records():
        match record:
            case {"kind": "loss", "value": dispatch.Tensor() as value}:
                total += float(value)  # expect: DL003
            case {"kind": "trace", "value": value}:
                traces.append(value)
            case {"kind": "shape", "value": (n,)}:
                shapes.append(n)
            case _:
                print("unknown record", record)
    print(f"loss {total:.4f}, {len(traces)} traces, shapes {shapes}")
    return total, traces, shapes


if __name__ == "__main__":
    main()
