"""Train a linear model with memoized learning-rate schedules looked up by name."""

import math

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards

AD = dispatch.Autodiff(dispatch.NumPy())


def cached(schedule):
    cache = {}
    hits = 0

    def lookup(step):
        nonlocal hits
        if step in cache:
            hits += 1
        else:
            cache[step] = schedule(step)
        return cache[step]

    def stats():
        return {"entries": len(cache), "hits": hits}

    lookup.stats = stats
    return lookup


SCHEDULES = {
    "constant": cached(lambda step: 0.1),
    "cosine": cached(lambda step: 0.05 * (1 + math.cos(math.pi * min(step, 20) / 20))),
    "warmup": cached(lambda step: 0.1 * min(1.0, (step + 1) / 5)),
}


def train(name, steps=12):
    lr_at = SCHEDULES[name]
    x = dispatch.rand((32, 3), seed=1)
    y = x @ dispatch.tensor([[1.0], [-2.0], [0.5]])
    w = dispatch.zeros((3, 1), device=AD).require_grad()
    losses = []
    for epoch in range(2):
        for step in range(steps):
            loss = ((x @ w - y) ** 2).mean()
            grads = loss.backward()
            w = (w - w.grad(grads) * lr_at(step)).require_grad()
            losses.append(loss.item())
    return w, losses, lr_at.stats()


def describe(t):
    if guards.is_capture(t):
        return f"traced {t.shape}"
    return f"{t.sum().item():.3f}"


def main():
    for name in SCHEDULES:
        w, losses, stats = train(name)
        print(name, f"{losses[-1]:.4f}", describe(w), stats)
        probe = dispatch.placeholder((4, 3), name="x")
        out = probe @ w.inner().to_device(probe.device)
        print(name, describe(out), describe(dispatch.replay(out, {"x": [[1.0, 0.0, 0.0]] * 4})))
