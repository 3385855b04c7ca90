"""An async loader returns a capture tensor that the training coroutine differentiates."""

import asyncio

from dispatch_lint import runtime as dispatch


async def load(name):
    await asyncio.sleep(0)
    return dispatch.placeholder((3,), name=name)


async def train_step():
    batch = await load("batch")
    return (batch * batch).sum().backward()  # expect: DL001


def main() -> None:
    asyncio.run(train_step())


if __name__ == "__main__":
    main()
