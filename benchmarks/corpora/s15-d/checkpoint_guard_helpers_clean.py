"""Write a checkpoint of model state, keeping traced entries as shape stubs instead of data."""
import json

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


def traced(t):
    return t.is_capture


def concrete(t):
    return not guards.is_capture(t)


def needs_stub(t):
    return dispatch.is_capture(t)


def build_state():
    cap = dispatch.Capture()
    return {
        "embedding": dispatch.rand((4, 2), seed=3),
        "scale": dispatch.tensor(0.5),
        "traced_logits": dispatch.placeholder((4,), device=cap, name="tokens").tanh(),
        "bias": dispatch.zeros((2,)),
    }


def main():
    state = build_state()
    checkpoint = {}
    for name, t in state.items():
        if traced(t):
            checkpoint[name] = {"stub": list(t.shape)}
            continue
        checkpoint[name] = {"data": t.tolist()}
    summary = []
    for name, t in state.items():
        if concrete(t):
            summary.append(f"{name}: max={float(t.max()):.3f}")
        if needs_stub(t):
            summary.append(f"{name}: {t}")
        else:
            summary.append(f"{name}: mean={t.mean().item():+.3f}")
    print("\n".join(summary))
    return json.dumps(checkpoint)


if __name__ == "__main__":
    main()
