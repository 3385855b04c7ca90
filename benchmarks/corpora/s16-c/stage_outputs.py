"""Capture a stacked encoder, group its outputs by stage and export one program per group."""

import functools

from dispatch_lint import runtime as dispatch


def encoder_stages(x, weights, activations):
    outs = []
    h = x
    for i, (w, act) in enumerate(zip(weights, activations)):
        h = act(h @ w)
        outs.append((f"stage{i}", h))
    return outs


def main():
    cap = dispatch.Capture()
    make_input = functools.partial(dispatch.placeholder, device=cap, dtype="float32")
    x = make_input((2, 4), name="x")
    weights = [dispatch.rand((4, 4), seed=s).to_device(cap) for s in range(3)]
    activations = [dispatch.tanh, dispatch.relu, lambda t: t.sigmoid()]

    by_stage = {}
    for name, h in encoder_stages(x, weights, activations):
        by_stage.setdefault(name, []).append(h)
        by_stage.setdefault("pooled", []).append(h.mean(axis=1))

    programs = {name: dispatch.export(*outs) for name, outs in by_stage.items()}
    batch = {"x": dispatch.rand((2, 4), seed=11).numpy()}
    results = {}
    for name, program in programs.items():
        out = program.run(batch)
        results[name] = list(out) if isinstance(out, tuple) else [out]

    pooled = by_stage["pooled"]
    last = pooled.pop()
    pooled.insert(0, last)
    preview = [t.to_device(dispatch.NumPy()) for t in pooled[:2]]  # expect: DL002
    for name, outs in sorted(results.items()):
        print(name, [o.shape for o in outs], preview[0].numpy())
