"""Blend the registered heads' scores on a batch of features into one ensemble score."""

import functools

from dispatch_lint import runtime as dispatch

import head_registry.heads  # noqa: F401  (fills the registry)
from head_registry.registry import HEADS, lookup


def run_heads(features, names):
    scored = []
    for name, spec in lookup(names):
        dev = dispatch.device(spec["device"])
        scored.append((name, spec["weight"], spec["fn"](features, dev)))
    return scored


def main():
    features = dispatch.rand((5, 4), seed=0)
    names = sorted(HEADS, key=lambda n: -HEADS[n]["weight"])
    scored = run_heads(features, names)
    weighted = [score * weight for _, weight, score in scored]
    blended = functools.reduce(lambda acc, s: acc + s, weighted)  # expect: DL008
    total_weight = sum(weight for _, weight, _ in scored)
    ranking = sorted(enumerate((blended / total_weight).numpy().ravel()), key=lambda p: -p[1])
    print([name for name, _, _ in scored], ranking[:3])
