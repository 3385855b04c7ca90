"""Resolve deployment profiles to devices and run a smoke step on each one."""

import json
from dataclasses import dataclass

from dispatch_lint import runtime as dispatch

PROFILES = json.loads("""[
    {"target": "train", "backend": "numpy"},
    {"target": "export", "inputs": [2, 3]},
    {"target": "export", "inputs": [2, 3], "grad": true}
]""")


@dataclass(frozen=True)
class ServeProfile:
    backend: str
    batch: int = 2


def resolve(profile):
    match profile:
        case ServeProfile(backend=backend):
            return dispatch.device(backend)
        case {"target": "train", "backend": str(backend)}:
            return dispatch.Autodiff(dispatch.device(backend))
        case {"target": "export", "grad": True}:
            # Keep gradients available on exported programs "just in case".
            return dispatch.device("autodiff:capture")  # expect: DL004
        case {"target": "export"}:
            return dispatch.Capture()
        case _:
            raise ValueError(f"unknown profile {profile!r}")


def smoke(device, shape=(2, 3)):
    if device.is_capture:
        x = dispatch.placeholder(shape, device=device, name="x")
        program = dispatch.export((x * 2.0).sum())
        return program.run({"x": dispatch.ones(shape)}).item()
    x = dispatch.ones(shape, device=device)
    if device.is_autodiff:
        x = x.require_grad()
        (x * x).sum().backward()
    return (x * 2.0).sum().item()


def main():
    profiles = [ServeProfile("numba"), *PROFILES]
    results = {}
    for index, profile in enumerate(profiles):
        device = resolve(profile)
        results[index] = (repr(device), smoke(device))
    for index, (name, value) in results.items():
        print(f"{index}: {name:<40} {value:8.2f}")


if __name__ == "__main__":
    main()
