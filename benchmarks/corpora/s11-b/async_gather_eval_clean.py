"""Train with async steps under asyncio.run, then export and check the model on gathered shards."""
import asyncio

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


async def load_batch(seed):
    await asyncio.sleep(0)
    x = dispatch.rand((8, 3), seed=seed)
    return x, x.sum(axis=1, keepdims=True) * 0.5


async def train_step(w, x, y, lr=0.1):
    loss = ((x @ w - y) ** 2).mean()
    grads = loss.backward()
    await asyncio.sleep(0)
    return (w - lr * w.grad(grads)).require_grad()


async def evaluate(program, batch):
    x, y = batch
    pred = program.run({"x": x})
    return ((pred - y) ** 2).mean().item()


async def fit_and_check(w, seeds):
    batches = await asyncio.gather(*(load_batch(s) for s in seeds))
    for x, y in batches:
        w = await train_step(w, x, y)
    cap = dispatch.Capture()
    x_in = dispatch.placeholder((8, 3), device=cap, name="x")
    program = dispatch.export(x_in @ w.inner().to_device(cap))
    return await asyncio.gather(*(evaluate(program, b) for b in batches))


def main():
    w = dispatch.rand((3, 1), seed=0, device=AD).require_grad()
    errors = asyncio.run(fit_and_check(w, range(4)))
    print("max shard error", max(errors))


if __name__ == "__main__":
    main()
