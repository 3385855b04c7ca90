"""Export a scoring function and read scores only from replayed, real tensors."""

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards

THRESHOLD = 0.5
_SEEN = {}


def _is_traced(t):
    return guards.is_capture(t)


def _count(t):
    key = "capture" if _is_traced(t) else "real"
    _SEEN[key] = _SEEN.get(key, 0) + 1


def score(x, w):
    return (x @ w).sigmoid().mean(axis=1)


def summarize(scores):
    _count(scores)
    if _is_traced(scores):
        return {"kind": "placeholder", "repr": repr(scores)}
    values = scores.tolist()
    above = len([v for v in values if v > THRESHOLD])
    return {"kind": "real", "above": above, "mean": f"{scores.mean():.3f}"}


def describe(result):
    match result:
        case {"kind": "placeholder", "repr": text}:
            return f"traced: {text[:48]}"
        case {"kind": "real", "above": above, "mean": mean}:
            return f"{above} above {THRESHOLD}, mean {mean}"
        case _:
            return "unknown result"


def main():
    weights = dispatch.rand((4, 3), seed=3)
    x = dispatch.placeholder((5, 4), name="x")
    traced = score(x, weights.to_device(x.device))
    results = [summarize(traced)]
    inputs = {"x": dispatch.rand((5, 4), seed=4).numpy()}
    real = guards.ensure_not_capture(dispatch.replay(traced, inputs), what="replayed scores")
    results.append(summarize(real))
    results.append(summarize(score(dispatch.rand((2, 4), seed=5), weights)))
    for i, result in enumerate(results):
        print(i, describe(result))
    print("seen:", _SEEN)


if __name__ == "__main__":
    main()
