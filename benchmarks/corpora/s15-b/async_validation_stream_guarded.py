"""Evaluate streamed validation batches asynchronously, the exported head's batch last."""
import asyncio

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


@guards.no_capture
async def evaluate(logits, targets):
    await asyncio.sleep(0)
    return ((logits - targets) ** 2).mean().item()


async def batches(w, cap):
    for seed in range(2):
        x = dispatch.rand((3, 2), seed=seed)
        yield x @ w, dispatch.zeros((3, 1))
    x = dispatch.placeholder((3, 2), device=cap, name="x")
    yield x @ w.to_device(cap), dispatch.zeros((3, 1)).to_device(cap)


async def run():
    w = dispatch.rand((2, 1), seed=3)
    scores = []
    async for logits, targets in batches(w, dispatch.Capture()):
        scores.append(await evaluate(logits, targets=targets))  # expect: DL001
    return scores


def main():
    scores = asyncio.run(run())
    print([f"{s:.4f}" for s in scores])
    return scores


if __name__ == "__main__":
    main()
