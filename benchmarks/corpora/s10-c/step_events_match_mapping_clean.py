"""Route JSON-like trainer messages with mapping patterns: train losses get a backward pass."""
from dispatch_lint import runtime as dispatch


def route(message, exported):
    match message:
        case {"kind": "train", "loss": loss, **rest}:
            grads = loss.backward()
            return f"step {rest.get('step', '?')}: {len(grads)} grads"
        case {"kind": "export", "outputs": [first, *others]}:
            exported.append(dispatch.export(first, *others))
            return f"exported {1 + len(others)} outputs"
        case {"kind": "eval", "value": value} if not dispatch.is_capture(value):
            return f"eval {value.item():.3f}"
        case {"kind": "eval"}:
            return "eval skipped (symbolic)"
        case _:
            return "ignored"


def main():
    dev = dispatch.Autodiff(dispatch.NumPy())
    w = dispatch.tensor([1.0, 2.0, 3.0], device=dev).require_grad()
    x = dispatch.placeholder((3,), name="x")
    exported = []
    messages = [
        {"kind": "train", "loss": (w * w).mean(), "step": 1},
        {"kind": "export", "outputs": [x.relu(), x.sum()]},
        {"kind": "eval", "value": x.mean()},
        {"kind": "eval", "value": dispatch.tensor(0.75)},
        {"kind": "heartbeat"},
    ]
    for message in messages:
        print(route(message, exported))
    print(exported[0].run({"x": [1.0, -2.0, 3.0]}))


if __name__ == "__main__":
    main()
