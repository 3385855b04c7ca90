"""Capture several decoder variants and keep the one with the lowest validation loss."""

from dispatch_lint import runtime as dispatch

ACTIVATIONS = {
    "tanh": dispatch.tanh,
    "relu": dispatch.relu,
    "sigmoid": lambda t: t.sigmoid(),
}


def decoder(x, w, act):
    return act(x @ w)


def capture_variants(cap, x, target, activations):
    candidates = []
    for seed, (name, act) in enumerate(activations.items()):
        w = dispatch.rand((4, 2), seed=seed).to_device(cap)
        out = decoder(x, w, act)
        loss = ((out - target) ** 2).mean()
        candidates.append({"name": name, "out": out, "loss": loss, "seed": seed})
    return candidates


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((3, 4), device=cap, name="tokens")
    target = dispatch.rand((3, 2), seed=42).to_device(cap)
    candidates = capture_variants(cap, x, target, ACTIVATIONS)
    exportable = list(filter(lambda c: c["out"].shape == (3, 2), candidates))
    best = min(exportable, key=lambda c: c["loss"].item())  # expect: DL003
    program = dispatch.export(best["out"])
    sample = {"tokens": dispatch.rand((3, 4), seed=7).numpy()}
    print(best["name"], program.run(sample).numpy())
