"""Rank classifier heads by validation loss, including the heads queued for export."""
from dispatch_lint import runtime as dispatch


def head_loss(features, head, labels):
    return ((features @ head).sigmoid() - labels).abs().mean()


def candidate_heads(n, seed):
    return [dispatch.rand((5, 1), seed=seed + k) for k in range(n)]


def main():
    features = dispatch.rand((16, 5), seed=2)
    labels = (dispatch.rand((16, 1), seed=7) > 0.5) * 1.0
    heads = candidate_heads(3, seed=20)
    scored = [(f"head{k}", head_loss(features, h, labels)) for k, h in enumerate(heads)]

    cap = dispatch.Capture()
    traced_features = dispatch.placeholder((16, 5), device=cap, name="features")
    traced_labels = dispatch.placeholder((16, 1), device=cap, name="labels")
    export_heads = candidate_heads(2, seed=40)
    scored.extend(
        (f"export{k}", head_loss(traced_features, h.to_device(cap), traced_labels))
        for k, h in enumerate(export_heads)
    )

    ranking = sorted(scored, key=lambda pair: pair[1].item())  # expect: DL003
    best_name, best_loss = ranking[0]
    print(best_name, best_loss)
    return ranking


if __name__ == "__main__":
    main()
