"""Serve a batch through the registered stages, then probe a fine-tuned batch the same way."""
import asyncio

from dispatch_lint import runtime as dispatch

from serving_stages_pkg import pipeline

AD = dispatch.Autodiff(dispatch.NumPy())


def main():
    batch = dispatch.rand((3, 4), seed=11)
    served = asyncio.run(pipeline.run_pipeline(["normalize", "score", "host"], batch))
    tuned = AD.wrap(dispatch.rand((3, 4), seed=12)).require_grad()
    probe = asyncio.run(pipeline.run_pipeline(["normalize", "host"], tuned))  # expect: DL007
    return served.tolist(), probe.tolist()


if __name__ == "__main__":
    main()
