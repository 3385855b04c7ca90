"""Save an exported program through a retry decorator, reload it and check the reloaded output."""
import functools
import os
import tempfile

from dispatch_lint import runtime as dispatch


def retry(times=3, exceptions=(OSError,)):
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for attempt in range(times):
                try:
                    return fn(*args, **kwargs)
                except exceptions:
                    if attempt == times - 1:
                        raise
            return None

        return wrapper

    return decorator


def flaky_disk(failures):
    calls = 0

    def check():
        nonlocal calls
        calls += 1
        if calls <= failures:
            raise OSError("disk busy")

    return check


def main():
    disk_ready = flaky_disk(failures=1)

    @retry(times=3)
    def save(program, path):
        disk_ready()
        with open(path, "w") as handle:
            handle.write(program.to_json())
        return path

    cap = dispatch.Capture()
    x = dispatch.placeholder((2, 3), device=cap, name="x")
    out = dispatch.tanh(x @ dispatch.rand((3, 1), seed=0).to_device(cap)).sum()
    with tempfile.TemporaryDirectory() as tmp:
        path = save(dispatch.export(out), os.path.join(tmp, "model.json"))
        with open(path) as handle:
            program = dispatch.Program.from_json(handle.read())
    out = program.run({"x": dispatch.rand((2, 3), seed=1)})
    print(f"reloaded output {out.item():.4f}")


if __name__ == "__main__":
    main()
