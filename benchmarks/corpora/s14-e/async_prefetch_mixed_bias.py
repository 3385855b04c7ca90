"""Prefetch feature batches asynchronously and add a shared bias before scoring them."""
import asyncio

from dispatch_lint import runtime as dispatch

BIAS = dispatch.tensor([0.1, 0.0, -0.1])


async def load_batch(index):
    await asyncio.sleep(0)
    return dispatch.rand((3,), seed=index)


async def load_traced(name):
    await asyncio.sleep(0)
    return dispatch.placeholder((3,), device="capture", name=name)


async def score(loader, arg):
    feats = await loader(arg)
    shifted = feats + BIAS
    return shifted.relu().sum()


async def pipeline():
    eager = await asyncio.gather(*(score(load_batch, i) for i in range(3)))
    traced = await score(load_traced, "serving")  # expect: DL008
    return list(eager) + [traced]


def main():
    scores = asyncio.run(pipeline())
    print([repr(s) for s in scores])
    return scores


if __name__ == "__main__":
    main()
