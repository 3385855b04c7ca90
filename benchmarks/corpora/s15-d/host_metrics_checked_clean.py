"""Replay an exported scoring graph and report its metrics through a checked host helper."""
from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


def on_host(t, what):
    guards.ensure_not_capture(t, what=what)
    return t


def as_host(t):
    return guards.ensure_not_capture(t, what="metric")


def build_scorer():
    cap = dispatch.Capture()
    logits = dispatch.placeholder((3,), device=cap, name="logits")
    probs = logits.sigmoid()
    return {"probs": probs, "confidence": probs.max(), "entropy_proxy": (probs * (1.0 - probs)).sum()}


def main():
    graph = build_scorer()
    names = list(graph)
    results = dispatch.replay([graph[n] for n in names], {"logits": [0.2, -1.0, 3.0]})
    replayed = dict(zip(names, results))
    report = {}
    for name, value in replayed.items():
        host = on_host(value, what=name)
        if host.shape:
            report[name] = [round(v, 3) for v in host.tolist()]
        else:
            report[name] = f"{as_host(host):.4f}"
    traced = graph["confidence"]
    report["graph"] = f"{traced!r} from {len(names)} outputs"
    print(report)
    return report


if __name__ == "__main__":
    main()
