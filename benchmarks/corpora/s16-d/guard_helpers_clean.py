"""Collect a mixed set of traced and eager outputs to host memory through guard helpers."""

import numpy as np

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards

SETTINGS = {"report": "eager", "width": 3}


def is_symbolic(t):
    return dispatch.is_capture(t)


def has_data(t):
    return not t.is_capture


def materialized(t, what="output"):
    guards.ensure_not_capture(t, what=what)
    return t


def legacy_host_copy(t):
    raise NotImplementedError("legacy_host_copy was removed; use to_host()")
    return np.asarray(t).copy()


def to_host(t, inputs):
    if is_symbolic(t):
        t = dispatch.replay(t, inputs)
    return t.numpy()


def build_outputs(width):
    x = dispatch.placeholder((2, width), name="x")
    eager = dispatch.rand((2, width), seed=4)
    return {"traced": (x * 3.0).tanh(), "eager": eager.tanh(), "bias": dispatch.ones((width,))}


def pick(outputs, key):
    return outputs.get(key, outputs["eager"])


def main():
    width = SETTINGS["width"]
    inputs = {"x": np.full((2, width), 0.1, dtype=np.float32)}
    outputs = build_outputs(width)
    hosts = {}
    for name, value in outputs.items():
        if not has_data(value):
            hosts[name] = to_host(value, inputs)
            continue
        hosts[name] = value.numpy()
    try:
        legacy_host_copy(outputs["traced"])
    except NotImplementedError as exc:
        print("skipped:", exc)
    chosen = pick(outputs, SETTINGS["report"])
    peak = materialized(chosen, what="the eager output").max().item()
    if is_symbolic(outputs["traced"]):
        print("traced output stays symbolic:", outputs["traced"])
    else:
        print("traced output is real:", float(outputs["traced"].sum()))
    print({k: v.shape for k, v in hosts.items()}, round(peak, 4))


if __name__ == "__main__":
    main()
