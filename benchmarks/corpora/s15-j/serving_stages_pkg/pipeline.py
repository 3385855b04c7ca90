"""Run named stages one after another as coroutines."""
import asyncio

from serving_stages_pkg.stages import STAGES


async def run_stage(name, x):
    await asyncio.sleep(0)
    return STAGES[name](x)


async def run_pipeline(names, x):
    for name in names:
        x = await run_stage(name, x)
    return x
