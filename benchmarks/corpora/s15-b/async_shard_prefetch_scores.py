"""Prefetch embedding shards concurrently and score one query against each shard."""
import asyncio

from dispatch_lint import runtime as dispatch

SHARDS = {"user": "numpy", "item": "numba", "context": "numpy"}


async def load_shard(name, seed, device):
    await asyncio.sleep(0)
    table = dispatch.rand((4, 3), seed=seed, device=device)
    return name, table


async def prefetch(config):
    jobs = [load_shard(name, i, dev) for i, (name, dev) in enumerate(config.items())]
    pairs = await asyncio.gather(*jobs)
    return dict(pairs)


async def run(query_seed=42):
    shards = await prefetch(SHARDS)
    query = dispatch.rand((3, 1), seed=query_seed)
    totals = {}
    for name, table in shards.items():
        totals[name] = (table @ query).sum()  # expect: DL008
    return {name: total.item() for name, total in totals.items()}


def main():
    scores = asyncio.run(run())
    print(", ".join(f"{k}={v:.3f}" for k, v in scores.items()))
    return scores


if __name__ == "__main__":
    main()
