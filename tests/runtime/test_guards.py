"""Guard modes (context-local, from the environment), the guard helpers, the trip log."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pytest

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards
from dispatch_lint.runtime.errors import (
    CaptureAutodiffError,
    CaptureAutodiffWarning,
    CaptureDataError,
    CaptureGuardError,
    CaptureTransferError,
)


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != guards.ENV_VAR}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )


SHOW_MODE = "from dispatch_lint.runtime import guards; print(guards.get_mode())"


@pytest.mark.parametrize(
    ("value", "expected"), [("strict", "strict"), ("off", "off"), ("", "raise")]
)
def test_mode_comes_from_the_environment_variable(value: str, expected: str) -> None:
    result = run_python(SHOW_MODE, DISPATCH_LINT_GUARDS=value)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected


def test_unknown_environment_mode_warns_and_keeps_every_check_on() -> None:
    result = run_python(SHOW_MODE, DISPATCH_LINT_GUARDS="strcit")
    assert result.stdout.strip() == "raise"
    assert "'strcit' is not a guard mode" in result.stderr


def test_the_unknown_mode_warning_points_at_the_users_import(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("import os\nfrom dispatch_lint import runtime\n")
    result = run_python(
        "import sys, warnings; warnings.simplefilter('always'); "
        f"sys.path.insert(0, {str(tmp_path)!r}); import train",
        DISPATCH_LINT_GUARDS="strcit",
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith(f"{tmp_path / 'train.py'}:2: RuntimeWarning: ")
    assert "modes.py" not in result.stderr


def test_strict_environment_turns_dl004_into_an_error() -> None:
    code = (
        "from dispatch_lint import runtime as dispatch\n"
        "from dispatch_lint.runtime.errors import CaptureAutodiffWarning\n"
        "try:\n    dispatch.Autodiff(dispatch.Capture())\n"
        "except CaptureAutodiffWarning as e:\n    print('raised', e.rule)\n"
    )
    assert (
        run_python(code, DISPATCH_LINT_GUARDS="strict").stdout.strip() == "raised DL004"
    )
    assert run_python(code).stdout.strip() == ""


def test_set_mode_and_mode_block() -> None:
    assert guards.get_mode() == "raise"
    with guards.mode("off"):
        assert guards.get_mode() == "off"
        with guards.mode("strict"):
            assert guards.get_mode() == "strict"
        assert guards.get_mode() == "off"
    assert guards.get_mode() == "raise"
    with pytest.raises(ValueError, match="unknown guard mode 'loud'"):
        guards.set_mode("loud")


def test_modes_are_kept_apart_across_threads() -> None:
    seen: dict[str, str] = {}
    barrier = threading.Barrier(2)

    def worker(name: str, mode: str) -> None:
        guards.set_mode(mode)
        barrier.wait()
        seen[name] = guards.get_mode()

    threads = [
        threading.Thread(target=worker, args=("a", "strict")),
        threading.Thread(target=worker, args=("b", "off")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {"a": "strict", "b": "off"}
    assert guards.get_mode() == "raise"


def test_modes_are_kept_apart_across_async_tasks() -> None:
    async def task(mode: str) -> str:
        guards.set_mode(mode)
        await asyncio.sleep(0)
        return guards.get_mode()

    async def main() -> list[str]:
        return list(await asyncio.gather(task("strict"), task("off")))

    assert asyncio.run(main()) == ["strict", "off"]
    assert guards.get_mode() == "raise"


def test_off_mode_records_no_origin_but_invariants_still_raise() -> None:
    with guards.mode("off"):
        x = dispatch.placeholder((2,))
        assert x.origin is None and repr(x.device).startswith("Capture#")
        assert guards.ensure_not_capture(x) is x
        with pytest.raises(CaptureDataError) as info:
            x.numpy()
        assert info.value.origin is None
        with pytest.raises(CaptureAutodiffError):
            x.sum().backward()
        with pytest.raises(CaptureTransferError):
            x.to_device("numpy")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            dispatch.Autodiff(dispatch.Capture())


def test_ensure_not_capture_passes_real_values_through() -> None:
    t = dispatch.ones(2)
    assert guards.ensure_not_capture(t) is t and guards.ensure_not_capture(3) == 3
    assert guards.is_capture(dispatch.placeholder((1,))) and not guards.is_capture([t])


def test_no_capture_checks_every_argument_at_the_call() -> None:
    calls = []

    @guards.no_capture
    def train_step(batch, *, weights=None, extra=None):  # type: ignore[no-untyped-def]
        """Docstring kept."""
        calls.append(batch)
        return "done"

    real = dispatch.ones(2)
    x = dispatch.placeholder((2,), name="x")
    assert (
        train_step(real, weights=[real]) == "done"
        and train_step.__doc__ == "Docstring kept."
    )
    for args, kwargs, name in [
        ((x,), {}, "batch"),
        ((real,), {"weights": [real, x]}, "weights"),
        ((real,), {"extra": {"w": x}}, "extra"),
        (((real, x),), {}, "batch"),
    ]:
        with pytest.raises(CaptureGuardError, match=f"train_step.*'{name}'") as info:
            train_step(*args, **kwargs)
        assert info.value.rule == "DL001" and info.value.origin is not None
    assert len(calls) == 1
    with guards.mode("off"):
        assert train_step(x) == "done"


def test_no_capture_on_methods_and_coroutines() -> None:
    class Trainer:
        @guards.no_capture
        def step(self, batch):  # type: ignore[no-untyped-def]
            return batch

    @guards.no_capture
    async def astep(batch):  # type: ignore[no-untyped-def]
        return batch

    with pytest.raises(CaptureGuardError, match="Trainer.step"):
        Trainer().step(dispatch.placeholder((1,)))
    with pytest.raises(CaptureGuardError):
        asyncio.run(astep(dispatch.placeholder((1,))))


def test_training_block_refuses_capture_tensors() -> None:
    outside = dispatch.placeholder((2,))
    with guards.training():
        real = dispatch.ones(2, device="autodiff:numpy") * 2.0
        assert not real.is_capture
        with pytest.raises(CaptureGuardError, match=r"guards\.training\(\)"):
            dispatch.placeholder((2,))
        with pytest.raises(CaptureGuardError):
            outside * 2.0
        with pytest.raises(CaptureGuardError):
            dispatch.zeros(2, device="capture")
    assert (outside * 2.0).is_capture
    with guards.mode("off"), guards.training():
        assert dispatch.placeholder((2,)).is_capture


def test_dl004_is_a_warning_in_raise_mode_and_an_error_in_strict_mode() -> None:
    with pytest.warns(CaptureAutodiffWarning, match="Autodiff over a capture device"):
        dispatch.Autodiff(dispatch.Capture())
    with guards.mode("strict"), pytest.raises(CaptureAutodiffWarning) as info:
        dispatch.Autodiff(dispatch.Capture())
    assert info.value.rule == "DL004"


def test_trip_log_gets_one_json_line_per_guard_error(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "trips.jsonl"
    monkeypatch.setenv("DISPATCH_LINT_TRIPS", str(log))
    born = sys._getframe().f_lineno + 1
    x = dispatch.placeholder((2,))
    with pytest.raises(CaptureAutodiffError):
        sink = sys._getframe().f_lineno + 1
        x.backward()
    with pytest.raises(CaptureDataError):
        x.numpy()
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [entry["rule"] for entry in lines] == ["DL001", "DL003"]
    expected = {"rule": "DL001", "file": __file__, "line": sink}
    if sys.version_info >= (3, 11):
        # Where on its line the sink is (the call `x.backward()`, 1-based, the end
        # exclusive): Python says it from 3.11 on.
        expected.update({"column": 9, "end_line": sink, "end_column": 21})
    # Where the origin's line starts.
    expected["origin"] = {"file": __file__, "line": born, "column": 5}
    assert lines[0] == expected
