"""A toy asynchronous parameter server: worker closures compute updates, the server applies them."""

import asyncio

import numpy as np

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards

AD = dispatch.Autodiff(dispatch.NumPy())


@guards.no_capture
async def apply_update(store, name, delta):
    await asyncio.sleep(0)
    store[name] = store[name] - delta
    return store[name]


def make_worker(worker_id, store, lr):
    rng = np.random.default_rng(worker_id)
    x = dispatch.from_numpy(rng.normal(size=(32, 4)).astype(np.float32))
    y = x.sum(axis=1, keepdims=True)

    async def gradient_worker():
        await asyncio.sleep(0)
        w = AD.wrap(store["w"]).require_grad()
        grads = ((x @ w - y) ** 2).mean().backward()
        return "w", w.grad(grads) * lr

    return gradient_worker


def make_export_worker(store, lr):
    async def export_worker():
        cap = dispatch.Capture()
        x = dispatch.placeholder((32, 4), device=cap, name="x")
        w = store["w"].to_device(cap)
        residual = x @ w - x.sum(axis=1, keepdims=True)
        delta = (x.T @ residual) * (2.0 * lr / 32)
        return "w", delta

    return export_worker


async def server(rounds, lr=0.05):
    store = {"w": dispatch.zeros((4, 1))}
    workers = [make_worker(i, store, lr) for i in range(3)]
    workers.append(make_export_worker(store, lr))
    for _ in range(rounds):
        updates = await asyncio.gather(*(worker() for worker in workers))
        for name, delta in updates:
            await apply_update(store, name, delta)  # expect: DL001
    return store


def main():
    store = asyncio.run(server(rounds=5))
    print(store["w"].numpy().round(3).ravel().tolist())
