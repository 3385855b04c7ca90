"""The rule registry: one class per catalog entry, in id order.

The CLI's ``--explain`` and ``--list-rules`` and the README's rule table read this registry;
the analysis engine asks it which rules judge which events.
"""

from __future__ import annotations

from dispatch_lint.rules.autodiff_mixed_move import AutodiffMixedMove
from dispatch_lint.rules.autodiff_over_capture import AutodiffOverCapture
from dispatch_lint.rules.backward_requires_autodiff import BackwardRequiresAutodiff
from dispatch_lint.rules.base import Rule
from dispatch_lint.rules.capture_backward import CaptureBackward
from dispatch_lint.rules.capture_data_read import CaptureDataRead
from dispatch_lint.rules.capture_escape import CaptureEscape
from dispatch_lint.rules.capture_to_device import CaptureToDevice
from dispatch_lint.rules.mixed_device_op import MixedDeviceOp
from dispatch_lint.rules.nested_autodiff import NestedAutodiff
from dispatch_lint.rules.syntax_error import SyntaxErrorRule

__all__ = ["ALL_RULES", "RULES_BY_ID", "Rule", "get_rule"]

ALL_RULES: tuple[type[Rule], ...] = (
    SyntaxErrorRule,
    CaptureBackward,
    CaptureToDevice,
    CaptureDataRead,
    AutodiffOverCapture,
    NestedAutodiff,
    BackwardRequiresAutodiff,
    AutodiffMixedMove,
    MixedDeviceOp,
    CaptureEscape,
)

RULES_BY_ID: dict[str, type[Rule]] = {r.spec.id: r for r in ALL_RULES}


def get_rule(rule_id: str) -> type[Rule]:
    """The rule class for ``rule_id`` (e.g. ``"DL001"``); KeyError for unknown ids."""
    try:
        return RULES_BY_ID[rule_id]
    except KeyError:
        raise KeyError(f"unknown rule id {rule_id!r}; known ids: {', '.join(RULES_BY_ID)}") from None
