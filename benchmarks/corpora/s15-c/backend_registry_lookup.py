"""Run each job on the backend class its registry entry names, wrapped for gradient tracking."""
from dispatch_lint import runtime as dispatch


def tracked(inner):
    return dispatch.Autodiff(inner)


def fit(device, seed):
    x = dispatch.rand((8, 3), seed=seed, device=device)
    w = dispatch.rand((3, 1), seed=seed + 1, device=device).require_grad()
    loss = ((x @ w).tanh() ** 2).mean()
    return loss.inner().item()


def trace(device, seed):
    x = dispatch.placeholder((8, 3), device=device, name="x")
    program = dispatch.export(((x * 0.5).tanh() ** 2).mean())
    return program.run({"x": dispatch.rand((8, 3), seed=seed)}).item()


JOBS = {
    "cpu": (dispatch.NumPy, fit),
    "jit": (dispatch.Numba, fit),
    "export": (dispatch.Capture, trace),
}


def main():
    reports = {}
    for seed, (kind, (make_backend, job)) in enumerate(JOBS.items()):
        device = tracked(make_backend())  # expect: DL004
        reports.setdefault(kind, []).append(job(device, seed))
    print({k: [round(v, 3) for v in vs] for k, vs in reports.items()})
    return reports


if __name__ == "__main__":
    main()
