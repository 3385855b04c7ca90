"""Writes a traced scoring model in several formats through a decorator-filled exporter registry."""
import json

from dispatch_lint import runtime as dispatch

EXPORTERS = {}


def exporter(name):
    def register(fn):
        EXPORTERS[name] = fn
        return fn
    return register


@exporter("json")
def export_json(outputs, sample):
    return dispatch.export(*outputs).to_json()


@exporter("golden")
def export_golden(outputs, sample):
    results = dispatch.replay(tuple(outputs), sample)
    return json.dumps([r.numpy().tolist() for r in results])


@exporter("summary")
def export_summary(outputs, sample):
    return "; ".join(f"{t.shape}: {t}" for t in outputs)


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((2, 3), device=cap, name="x")
    w = dispatch.rand((3, 1), seed=7).to_device(cap)
    score = dispatch.sigmoid(x @ w)
    outputs = [score, score.sum()]
    sample = {"x": [[1.0, 0.0, 2.0], [0.5, 0.5, 0.5]]}
    written = {fmt: EXPORTERS[fmt](outputs, sample) for fmt in ("json", "golden", "summary")}
    return {fmt: len(text) for fmt, text in written.items()}


if __name__ == "__main__":
    main()
