"""Score a captured two-head model with a table of metric callbacks before shipping it."""

from dispatch_lint import runtime as dispatch


def mean_score(t):
    return float(t.mean())


def peak(t):
    return t.max().item()


def active_fraction(t):
    return float((t > 0.5).astype("float32").mean())


METRICS = {"mean": mean_score, "peak": peak}
METRICS.update(active=active_fraction)


def evaluate(outputs, metrics, on_result=None):
    report = {}
    for head, out in outputs.items():
        for metric_name, fn in metrics.items():
            value = fn(out)
            report.setdefault(head, {})[metric_name] = value
            if on_result is not None:
                on_result(head, metric_name, value)
    return report


def build_heads(x, w):
    logits = x @ w
    return {"prob": logits.sigmoid(), "score": logits.tanh()}


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((4, 3), device=cap, name="x")
    w = dispatch.rand((3, 2), seed=5).to_device(cap)
    heads = build_heads(x, w)
    program = dispatch.export(*heads.values())
    batch = {"x": dispatch.rand((4, 3), seed=1).numpy()}
    replayed = dict(zip(heads.keys(), program.run(batch)))
    rows = []
    report = evaluate(heads, METRICS, on_result=lambda *row: rows.append(row))  # expect: DL003
    for head in sorted(report, key=lambda h: report[h]["mean"]):
        print(head, report[head], replayed[head].shape)
    print(program.to_json()[:60], len(rows))
