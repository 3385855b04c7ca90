"""Computes per-head validation metrics from a captured evaluation graph and prints them."""
from dispatch_lint import runtime as dispatch


def build_eval_graph(num_heads):
    cap = dispatch.Capture()
    feats = dispatch.placeholder((4, 8), device=cap, name="features")
    heads = []
    for h in range(num_heads):
        weight = dispatch.rand((8,), seed=h).to_device(cap)
        logits = (feats * weight).sum(axis=1)
        heads.append(dispatch.sigmoid(logits).mean())
    return heads


def summarize(values, fmt):
    return ", ".join(fmt(v) for v in values)


def main():
    heads = build_eval_graph(3)
    program = dispatch.export(*heads)
    print("exported", len(program.to_json()), "bytes")
    scores = list(map(lambda t: t.item(), heads))  # expect: DL003
    print(summarize(scores, lambda s: f"{s:.3f}"))
    return scores


if __name__ == "__main__":
    main()
