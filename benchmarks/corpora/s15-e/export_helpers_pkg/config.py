"""Export settings: defaults, environment overrides, and the resolved namespace."""
import os
from types import SimpleNamespace

from export_helpers_pkg.helpers import parse_device

DEFAULTS = {"device": "capture", "fmt": ".3f", "rows": 2}
PRECISION = os.environ.get("EXPORT_FMT", DEFAULTS["fmt"])


def load(**overrides):
    merged = dict(DEFAULTS, **overrides)
    merged["device"] = parse_device(os.environ.get("EXPORT_DEVICE", merged["device"]))
    return SimpleNamespace(**merged)
