"""Serve a captured scorer: replay it per request and post-process through a table of steps."""

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


def clip(t):
    return (t - 0.05).relu() + 0.05


def normalize(t):
    return t / t.sum(axis=1, keepdims=True)


def as_rows(t):
    return [[round(v, 3) for v in row] for row in t.tolist()]


def is_placeholder(t):
    return guards.is_capture(t)


def build_scorer():
    cap = dispatch.Capture()
    x = dispatch.placeholder((2, 3), device=cap, name="x")
    w = dispatch.rand((3, 3), seed=4).to_device(cap)
    return dispatch.export((x @ w).sigmoid(), (x @ w).tanh())


def serve(program, requests, steps):
    responses = {}
    for request_id, payload in requests.items():
        probs, *extras = program.run({"x": payload})
        if is_placeholder(probs):
            continue
        for _, step in steps:
            probs = step(probs)
        responses.setdefault("rows", []).extend(as_rows(probs))
        responses.setdefault("ids", []).append(request_id)
        responses[request_id] = {"extras": len(extras), "top": float(probs.max())}
    return responses


def main():
    program = dispatch.Program.from_json(build_scorer().to_json())
    steps = [("normalize", normalize)]
    steps.insert(0, ("clip", clip))
    steps.append(("noop", lambda t: t))
    name, _ = steps.pop()
    requests = {f"req{i}": dispatch.rand((2, 3), seed=i).numpy() for i in range(3)}
    responses = serve(program, requests, steps)
    for request_id in responses.get("ids", []):
        print(request_id, responses[request_id], responses.get("rows", [])[:1], name)
