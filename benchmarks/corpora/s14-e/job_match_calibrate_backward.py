"""Dispatch queued jobs by type: train on autodiff, export through a capture trace with calibration."""
from dataclasses import dataclass

from dispatch_lint import runtime as dispatch


@dataclass
class TrainJob:
    lr: float
    steps: int = 2


@dataclass
class ExportJob:
    name: str
    calibrate: bool = False


def run_job(job):
    match job:
        case TrainJob(lr=lr, steps=steps):
            ad = dispatch.Autodiff(dispatch.NumPy())
            w = dispatch.ones((3,), device=ad).require_grad()
            for _ in range(steps):
                grads = (w * w).sum().backward()
                w = ad.from_inner(w.inner() - lr * w.grad(grads)).require_grad()
            return w.inner()
        case ExportJob(name=name, calibrate=True):
            x = dispatch.placeholder((3,), name=name)
            out = (x * x).sum()
            out.backward()  # expect: DL001
            return dispatch.export(out)
        case ExportJob(name=name):
            x = dispatch.placeholder((3,), name=name)
            return dispatch.export((x * x).sum())
        case _:
            raise TypeError(f"unknown job {job!r}")


def main():
    queue = [TrainJob(lr=0.1), ExportJob("feats"), ExportJob("calib", calibrate=True)]
    return [run_job(job) for job in queue]


if __name__ == "__main__":
    main()
