"""Run training steps as coroutines under asyncio.run, with a placeholder dry run of the loop."""
import asyncio

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


async def load_batch(seed):
    await asyncio.sleep(0)
    x = dispatch.rand((8, 3), seed=seed)
    return x, x.sum(axis=1, keepdims=True) * 0.5


async def train_step(w, x, y, lr):
    loss = ((x @ w - y) ** 2).mean()
    grads = loss.backward()
    await asyncio.sleep(0)
    return (w - lr * w.grad(grads)).require_grad(), loss


async def run(w, batches, lr=0.1):
    for x, y in batches:
        w, loss = await train_step(w, x, y, lr)
    return w


async def prefetch(seeds):
    return await asyncio.gather(*(load_batch(s) for s in seeds))


def main():
    w = dispatch.rand((3, 1), seed=0, device=AD).require_grad()
    cap = dispatch.Capture()
    x_dry = dispatch.placeholder((8, 3), device=cap, name="x")
    dry_batches = [(x_dry, x_dry.sum(axis=1, keepdims=True) * 0.5)]
    w = asyncio.run(run(w, dry_batches))  # expect: DL008
    batches = asyncio.run(prefetch(range(4)))
    w = asyncio.run(run(w, batches))
    print(w.inner().tolist())


if __name__ == "__main__":
    main()
