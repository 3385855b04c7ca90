"""Serve a small MLP: load weights and trace each endpoint concurrently with asyncio."""

import asyncio

import numpy as np

from dispatch_lint import runtime as dispatch


async def load_weights(seed):
    await asyncio.sleep(0)
    rng = np.random.default_rng(seed)
    return {
        "w1": dispatch.from_numpy(rng.normal(size=(6, 12)).astype(np.float32)),
        "w2": dispatch.from_numpy(rng.normal(size=(12, 2)).astype(np.float32)),
    }


def forward(params, x):
    return (x @ params["w1"]).tanh() @ params["w2"]


async def trace_endpoint(name, params, batch):
    cap = dispatch.Capture()
    x = dispatch.placeholder((batch, 6), device=cap, name="x")
    weights = {k: v.to_device(cap) for k, v in params.items()}
    await asyncio.sleep(0)
    logits = forward(weights, x)
    program = dispatch.export(logits)
    warm = logits.to_device(dispatch.Numba())  # expect: DL002
    return name, program, warm


async def serve(endpoints):
    params = await load_weights(seed=7)
    traced = await asyncio.gather(
        *(trace_endpoint(name, params, batch) for name, batch in endpoints.items())
    )
    table = {name: program for name, program, _ in traced}
    results = {}
    for name, batch in endpoints.items():
        request = np.ones((batch, 6), dtype=np.float32)
        results[name] = table[name].run({"x": request}, device=dispatch.Numba())
    return results


def main():
    results = asyncio.run(serve({"small": 1, "bulk": 8}))
    for name, out in results.items():
        print(name, out.shape, out.numpy().round(3).tolist()[0])
