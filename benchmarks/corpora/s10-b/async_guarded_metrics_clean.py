"""Replays an exported model asynchronously and aggregates metrics in a no_capture coroutine."""
import asyncio

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


@guards.no_capture
async def aggregate(preds, targets):
    await asyncio.sleep(0)
    err = (preds - targets).abs()
    return {"mae": err.mean().item(), "worst": err.max().item()}


async def serve(program, batch):
    await asyncio.sleep(0)
    return program.run({"x": batch})


async def pipeline(outputs, batches, targets):
    program = dispatch.export(outputs)
    preds = await asyncio.gather(*(serve(program, b) for b in batches))
    return [await aggregate(p, targets) for p in preds]


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((4,), device=cap, name="x")
    outputs = dispatch.tanh(x * dispatch.tensor([0.5, 1.0, 1.5, 2.0]).to_device(cap))
    batches = [[0.1, 0.2, 0.3, 0.4], [1.0, -1.0, 0.5, 0.0]]
    targets = dispatch.zeros((4,))
    metrics = asyncio.run(pipeline(outputs, batches, targets))
    print(metrics, repr(outputs))
    return metrics


if __name__ == "__main__":
    main()
