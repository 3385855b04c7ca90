"""Evaluates shards concurrently with asyncio and logs each shard's loss."""
import asyncio

from dispatch_lint import runtime as dispatch


async def load_shard(seed, device):
    await asyncio.sleep(0)
    return dispatch.rand((8, 3), seed=seed, device=device), dispatch.zeros((8,), device=device)


async def eval_shard(seed, w, device):
    x, y = await load_shard(seed, device)
    return ((x @ w - y) ** 2.0).mean()


async def run_eval(w, seeds, device, log):
    losses = await asyncio.gather(*(eval_shard(s, w, device) for s in seeds))
    for seed, loss in zip(seeds, losses):
        log.append(f"shard {seed}: {loss:.4f}")
    return losses


def main():
    log = []
    w = dispatch.rand((3,), seed=5)
    asyncio.run(run_eval(w, [1, 2], dispatch.NumPy(), log))
    cap = dispatch.device("capture")
    losses = asyncio.run(run_eval(w.to_device(cap), [3], cap, log))  # expect: DL003
    program = dispatch.export(*losses)
    return log, program


if __name__ == "__main__":
    main()
