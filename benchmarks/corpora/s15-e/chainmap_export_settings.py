"""Resolve export settings from CLI, environment and defaults with a ChainMap, then trace a head."""
import os
from collections import ChainMap

from dispatch_lint import runtime as dispatch

DEFAULTS = {"backend": "numpy", "grad": "off", "width": 4}


def env_settings(prefix="HEAD_"):
    keys = ("backend", "grad", "width")
    return {k: os.environ[prefix + k.upper()] for k in keys if prefix + k.upper() in os.environ}


def resolve_device(settings):
    name = settings["backend"]
    if settings["grad"] == "on":
        name = f"autodiff:{name}"
    return dispatch.device(name)


def main():
    cli = {"backend": "capture", "grad": "on"}
    settings = ChainMap(cli, env_settings(), DEFAULTS)
    dev = resolve_device(settings)  # expect: DL004
    width = int(settings["width"])
    x = dispatch.placeholder((2, width), device=dev, name="x")
    w = dispatch.ones((width, 1)).to_device(dev.inner if dev.is_autodiff else dev)
    program = dispatch.export((x @ w).relu())
    return program.to_json()


if __name__ == "__main__":
    main()
