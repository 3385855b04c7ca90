"""Pick the widest exported head with max(key=shape) and replay only that head."""
from dispatch_lint import runtime as dispatch


def build_heads(cap, widths):
    x = dispatch.placeholder((4, 3), device=cap, name="x")
    return {f"head{n}": x @ dispatch.rand((3, n), seed=n).to_device(cap) for n in widths}


def main():
    cap = dispatch.Capture()
    heads = build_heads(cap, (1, 4, 2))
    for name, out in sorted(heads.items(), key=lambda kv: kv[0]):
        print(f"{name}: {out}")
    widest = max(heads.values(), key=lambda t: t.shape[-1])
    smallest = min(heads, key=lambda name: heads[name].shape[-1])
    result = dispatch.replay(widest, {"x": dispatch.rand((4, 3), seed=7)})
    print(smallest, result.tolist())


if __name__ == "__main__":
    main()
