"""Map deployment configs to devices."""
from dispatch_lint import runtime as dispatch


def resolve(cfg):
    match cfg:
        case {"target": "cpu", "grad": True}:
            return dispatch.device("autodiff:numpy")
        case {"target": "cpu"}:
            return dispatch.NumPy()
        case {"target": "export", "grad": True}:
            return dispatch.device("autodiff:capture")  # expect: DL004
        case {"target": "export"}:
            return dispatch.Capture()
        case _:
            raise ValueError(f"unknown target in {cfg!r}")
