"""Devices are value objects; every Capture() is a new one; device strings."""

from __future__ import annotations

import pytest

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime.errors import CaptureAutodiffWarning


def test_plain_and_autodiff_devices_are_equal_by_value() -> None:
    assert dispatch.NumPy() == dispatch.NumPy() and dispatch.Numba() == dispatch.Numba()
    assert dispatch.NumPy() != dispatch.Numba()
    assert dispatch.Autodiff(dispatch.NumPy()) == dispatch.Autodiff("numpy")
    assert dispatch.Autodiff(dispatch.NumPy()) != dispatch.Autodiff(dispatch.Numba())
    assert (
        len(
            {
                dispatch.NumPy(),
                dispatch.NumPy(),
                dispatch.Autodiff(dispatch.NumPy()),
                dispatch.Autodiff(dispatch.NumPy()),
            }
        )
        == 2
    )


def test_every_capture_device_is_new_and_named_by_where_it_was_made() -> None:
    a, b = dispatch.Capture(), dispatch.Capture()
    assert dispatch.device(a) == a and a != b and len({a, b}) == 2
    assert dispatch.device("capture") != dispatch.device("capture")
    assert repr(a).startswith("Capture@test_devices.py:")
    assert a.is_capture and not dispatch.NumPy().is_capture


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("numpy", dispatch.NumPy()),
        ("numba", dispatch.Numba()),
        ("autodiff:numpy", dispatch.Autodiff(dispatch.NumPy())),
        ("autodiff:numba", dispatch.Autodiff(dispatch.Numba())),
    ],
)
def test_device_strings(text: str, expected: dispatch.Device) -> None:
    assert dispatch.device(text) == expected
    assert dispatch.zeros(2, device=text).device == expected
    assert repr(expected) in {
        "NumPy()",
        "Numba()",
        "Autodiff(NumPy())",
        "Autodiff(Numba())",
    }


def test_capture_strings() -> None:
    assert dispatch.device("capture").is_capture
    with pytest.warns(CaptureAutodiffWarning):
        dev = dispatch.device("autodiff:capture")
    assert (
        dev.is_capture and dev.is_autodiff and repr(dev).startswith("Autodiff(Capture@")
    )


def test_unknown_device_strings_name_the_allowed_ones() -> None:
    with pytest.raises(
        ValueError, match="unknown device 'cuda'.*'numpy'.*'autodiff:capture'"
    ):
        dispatch.device("cuda")
    with pytest.raises(ValueError, match="unknown device"):
        dispatch.zeros(2, device="autodiff:cuda")
    with pytest.raises(TypeError, match="device must be"):
        dispatch.zeros(2, device=3)
