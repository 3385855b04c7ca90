"""Every rule's runtime error: raised with its rule id, the origin line and an explained message."""

from __future__ import annotations

import pickle
import sys
import warnings

import numpy as np
import pytest

from dispatch_lint import catalog
from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import errors, guards
from dispatch_lint.runtime.errors import (
    AutodiffTransferError,
    CaptureAutodiffError,
    CaptureAutodiffWarning,
    CaptureDataError,
    CaptureGuardError,
    CaptureTransferError,
    DeviceMismatchError,
    DispatchError,
    NestedAutodiffError,
    RequiresAutodiffError,
)

AD = dispatch.Autodiff(dispatch.NumPy())


def here() -> int:
    """The caller's line number: ``x, line = make(), here()`` notes where ``x`` was born."""
    return sys._getframe(1).f_lineno


def assert_explained(error: DispatchError, rule_id: str, line: int | None) -> None:
    spec = catalog.rule(rule_id)
    message = str(error)
    assert error.rule == rule_id and error.rule_name == spec.name
    assert message.startswith(spec.message)
    assert rule_id in message and spec.name in message and type(error).fix() in message
    if line is None:
        assert error.origin is None
    else:
        assert error.origin is not None
        assert error.origin.file == __file__ and error.origin.line == line
        assert (
            f"The {spec.origin} was created at {__file__}:{line}." in message
            and str(error.origin) == f"{__file__}:{line}"
        )


@pytest.mark.parametrize("rule_id", [f"DL00{i}" for i in range(1, 9)])
def test_every_catalog_rule_has_its_error_class(rule_id: str) -> None:
    spec = catalog.rule(rule_id)
    cls = getattr(errors, spec.runtime_error)
    assert errors.ERRORS_BY_RULE[rule_id] is cls
    assert issubclass(cls, DispatchError) and issubclass(cls, RuntimeError)
    assert cls.rule == rule_id and cls.rule_name == spec.name
    assert str(cls("something happened")).startswith(
        spec.message + ": something happened"
    )


@pytest.mark.parametrize("call", ["backward", "require_grad", "inner"])
def test_dl001_autodiff_call_on_a_capture_tensor(call: str) -> None:
    x, born = dispatch.placeholder((2,)), here()
    loss = (x * 2.0).sum()
    with pytest.raises(CaptureAutodiffError) as info:
        getattr(loss, call)()
    assert_explained(info.value, "DL001", born)
    assert f".{call}()" in str(info.value)


def test_dl001_on_autodiff_over_capture_and_grad() -> None:
    with pytest.warns(CaptureAutodiffWarning):
        dev = dispatch.Autodiff(dispatch.Capture())
    x, born = dispatch.placeholder((2,), device=dev), here()
    assert x.is_autodiff and x.is_capture
    with pytest.raises(CaptureAutodiffError) as info:
        x.grad(dispatch.Gradients({}))
    assert_explained(info.value, "DL001", born)


def test_dl002_capture_tensor_moved_off_its_device() -> None:
    cap = dispatch.Capture()
    x, born = dispatch.placeholder((2,), device=cap), here()
    assert x.to_device(cap) is x
    for target in (dispatch.NumPy(), "numpy", dispatch.Capture(), "capture", AD):
        with pytest.raises(CaptureTransferError) as info:
            x.exp().to_device(target)
        assert_explained(info.value, "DL002", born)


@pytest.mark.parametrize(
    "read",
    [
        lambda t: t.numpy(),
        lambda t: t.item(),
        lambda t: t.tolist(),
        float,
        int,
        bool,
        np.asarray,
        np.array,
        lambda t: format(t, ".3f"),
        lambda t: f"{t:.2f}",
    ],
)
def test_dl003_data_read_on_a_capture_tensor(read) -> None:  # type: ignore[no-untyped-def]
    x, born = dispatch.placeholder(()), here()
    with pytest.raises(CaptureDataError) as info:
        read(x + 1.0)
    assert_explained(info.value, "DL003", born)


def test_dl003_using_a_capture_tensor_as_a_condition_raises_at_the_if() -> None:
    x = dispatch.placeholder(())
    with pytest.raises(CaptureDataError):
        if x > 0:
            pass


def test_dl004_warns_where_the_device_is_built_and_raises_in_strict_mode() -> None:
    cap, made = dispatch.Capture(), here()
    line = here() + 2
    with pytest.warns(CaptureAutodiffWarning) as record:
        dispatch.Autodiff(cap)
    assert record[0].filename == __file__ and record[0].lineno == line
    assert_explained(record[0].message, "DL004", made)
    line = here() + 2
    with guards.mode("strict"), pytest.raises(CaptureAutodiffWarning) as info:
        dispatch.device("autodiff:capture")
    assert_explained(info.value, "DL004", line)
    with guards.mode("off"), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert dispatch.Autodiff(dispatch.Capture()).is_capture


def test_dl005_nested_autodiff() -> None:
    with pytest.raises(NestedAutodiffError) as info:
        dispatch.Autodiff(AD)
    assert_explained(info.value, "DL005", None)


@pytest.mark.parametrize("call", ["backward", "require_grad", "inner"])
@pytest.mark.parametrize("dev", [dispatch.NumPy(), dispatch.Numba()])
def test_dl006_autodiff_call_on_a_plain_tensor(call: str, dev: dispatch.Device) -> None:
    with pytest.raises(RequiresAutodiffError) as info:
        getattr(dispatch.ones(2, device=dev), call)()
    assert_explained(info.value, "DL006", None)


def test_dl007_moves_between_autodiff_and_plain() -> None:
    with pytest.raises(AutodiffTransferError) as info:
        dispatch.ones(2, device=AD).to_device(dispatch.NumPy())
    assert_explained(info.value, "DL007", None)
    with pytest.raises(AutodiffTransferError):
        dispatch.ones(2).to_device("autodiff:numpy")
    with pytest.raises(AutodiffTransferError):
        dispatch.ones(2).to_device(dispatch.Autodiff(dispatch.Numba()))


def test_dl008_capture_with_real_and_two_capture_devices() -> None:
    x, born = dispatch.placeholder((2,)), here()
    with pytest.raises(DeviceMismatchError) as info:
        x + dispatch.ones(2)
    assert_explained(info.value, "DL008", born)
    with pytest.raises(DeviceMismatchError) as info:
        dispatch.ones(2) * x
    assert_explained(info.value, "DL008", born)
    with pytest.raises(DeviceMismatchError):
        x @ dispatch.placeholder((2,))


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (dispatch.NumPy(), dispatch.Numba()),
        (AD, dispatch.Numba()),
        (AD, dispatch.Autodiff(dispatch.Numba())),
    ],
)
def test_dl008_real_devices(left: dispatch.Device, right: dispatch.Device) -> None:
    with pytest.raises(DeviceMismatchError) as info:
        dispatch.ones(2, device=left) - dispatch.ones(2, device=right)
    assert_explained(info.value, "DL008", None)


def test_capture_check_comes_first() -> None:
    with pytest.warns(CaptureAutodiffWarning):
        x, born = dispatch.placeholder((2,), device="autodiff:capture"), here()
    with pytest.raises(CaptureTransferError) as info:
        x.to_device(dispatch.NumPy())  # not DL007, though autodiff -> plain
    assert_explained(info.value, "DL002", born)
    with pytest.raises(CaptureAutodiffError):
        dispatch.placeholder(
            (2,)
        ).backward()  # not DL006, though on a plain capture device


def test_origin_of_a_computed_capture_tensor_is_where_its_source_was_born() -> None:
    cap = dispatch.Capture()
    w, w_born = dispatch.ones(2).to_device(cap), here()
    x, x_born = dispatch.placeholder((2,), device=cap), here()
    assert (w * x).origin.line == w_born
    assert (x * w).exp().sum().origin.line == x_born
    assert (x * 3.0).origin.line == x_born


def test_errors_survive_pickling_unchanged() -> None:
    x, born = dispatch.placeholder((2,)), here()
    with pytest.raises(CaptureDataError) as info:
        x.numpy()
    copy = pickle.loads(pickle.dumps(info.value))
    assert type(copy) is CaptureDataError and str(copy) == str(info.value)
    assert copy.origin == info.value.origin and copy.origin.line == born
    assert copy.rule == "DL003"


def test_guard_error_is_dl001() -> None:
    x, born = dispatch.placeholder((2,)), here()
    with pytest.raises(CaptureGuardError) as info:
        guards.ensure_not_capture(x, what="the batch")
    assert isinstance(info.value, CaptureAutodiffError)
    assert_explained(info.value, "DL001", born)
    # The catalog's first sentence, then what the guard saw, in the words of `what=`, and
    # the guards' own fix (not "differentiate the real result": nothing is differentiated).
    assert str(info.value).startswith(
        "Capture tensors do not support autodiff: the batch is a capture tensor (placeholder"
    )
    assert "and ensure_not_capture() lets only real tensors through." in str(info.value)
    assert f"Fix: {catalog.GUARD_FIX}." in str(info.value)
    assert catalog.rule("DL001").fix not in str(info.value)


def test_dl004_names_the_capture_device_it_was_built_over() -> None:
    cap, made = dispatch.Capture(), here()
    with guards.mode("strict"), pytest.raises(CaptureAutodiffWarning) as info:
        dispatch.Autodiff(cap)
    assert f"The capture device was created at {__file__}:{made}." in str(info.value)
    assert "capture tensor was created" not in str(info.value)
