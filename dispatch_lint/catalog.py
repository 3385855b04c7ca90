"""The rule catalog: one table that the runtime errors, the static rules, the docs and the
README are all checked against.

This module is pure data and imports nothing heavy: the runtime imports it in training code.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "GUARD_FIX",
    "HOME_URL",
    "RULES",
    "RULES_BY_ID",
    "RULES_BY_NAME",
    "RuleSpec",
    "markdown_rules",
    "rule",
]

#: The project's home; each rule's documentation is a section of its README (see ``RuleSpec.url``).
HOME_URL = "https://github.com/dispatch-lint/dispatch-lint"


@dataclass(frozen=True)
class RuleSpec:
    """One rule of the catalog, as every part of the project names it."""

    id: str
    name: str
    #: "error" or "warning": the default severity of a static finding.
    severity: str
    #: One line: what the static check flags.
    summary: str
    #: The class in ``dispatch_lint.runtime.errors`` raised (or warned) at run time; for a
    #: rule only another framework's values break, that framework's own error (JAX's).
    runtime_error: str
    #: Every runtime message and every static message starts with this sentence.
    message: str
    #: One line: how to fix it.
    fix: str
    #: What the runtime error's origin is the birthplace of ("The capture tensor was created
    #: at ...").
    origin: str = "capture tensor"

    @property
    def slug(self) -> str:
        """The README anchor of this rule's section, e.g. ``dl001-capture-backward``."""
        return f"{self.id.lower()}-{self.name}"

    @property
    def url(self) -> str:
        """Where this rule is documented: its section of the README."""
        return f"{HOME_URL}#{self.slug}"


RULES: tuple[RuleSpec, ...] = (
    RuleSpec(
        id="DL000",
        name="syntax-error",
        severity="error",
        summary="the file cannot be parsed or compiled by CPython, so nothing in it was checked",
        runtime_error="SyntaxError",
        message="Syntax error",
        fix="fix the syntax error; the rest of the file is checked once it parses",
    ),
    RuleSpec(
        id="DL001",
        name="capture-backward",
        severity="error",
        summary="a value that may be a capture tensor reaches .backward(), .require_grad(), "
        ".grad() or .inner()",
        runtime_error="CaptureAutodiffError",
        message="Capture tensors do not support autodiff",
        fix="replay the captured program first (dispatch.replay / Program.run) and "
        "differentiate the real result, or train on Autodiff(NumPy())",
    ),
    RuleSpec(
        id="DL002",
        name="capture-to-device",
        severity="error",
        summary="a capture tensor reaches .to_device(d) with d not its own capture device",
        runtime_error="CaptureTransferError",
        message="Cannot move a tensor from a capture device",
        fix="export and run the program (Program.run(..., device=...)) to get a real tensor "
        "on the target device",
    ),
    RuleSpec(
        id="DL003",
        name="capture-data-read",
        severity="error",
        summary="a capture tensor's data is read: .numpy(), .item(), .tolist(), float/int/bool, "
        "np.asarray, format specs, or use as a condition",
        runtime_error="CaptureDataError",
        message="Capture tensors hold no data",
        fix="replay the program to get real data, or guard the read with is_capture(t)",
    ),
    RuleSpec(
        id="DL004",
        name="autodiff-over-capture",
        severity="warning",
        summary="an Autodiff(...) device built over a capture device",
        runtime_error="CaptureAutodiffWarning",
        message="Autodiff over a capture device",
        fix="capture on a plain Capture() device and differentiate after replay on "
        "Autodiff(NumPy())",
        origin="capture device",
    ),
    RuleSpec(
        id="DL005",
        name="nested-autodiff",
        severity="error",
        summary="Autodiff(...) wrapping an autodiff device",
        runtime_error="NestedAutodiffError",
        message="Autodiff should not wrap an autodiff device",
        fix="wrap the inner device once: Autodiff(NumPy()), not Autodiff(Autodiff(...))",
    ),
    RuleSpec(
        id="DL006",
        name="backward-requires-autodiff",
        severity="error",
        summary=".backward(), .require_grad(), .grad() or .inner() on a tensor that is "
        "certainly on a plain (NumPy or Numba) device",
        runtime_error="RequiresAutodiffError",
        message="Requires autodiff tensor",
        fix="create the tensor on Autodiff(NumPy()) (or lift it with Autodiff(d).wrap(t))",
    ),
    RuleSpec(
        id="DL007",
        name="autodiff-mixed-move",
        severity="error",
        summary=".to_device(d) between an autodiff and a non-autodiff device",
        runtime_error="AutodiffTransferError",
        message="Cannot move between autodiff and non-autodiff instances",
        fix="call .inner() to drop autodiff, or Autodiff(d).wrap(t) to lift a tensor",
    ),
    RuleSpec(
        id="DL008",
        name="mixed-device-op",
        severity="error",
        summary="a binary operation whose two tensors are on different devices",
        runtime_error="DeviceMismatchError",
        message="Tensors are on different devices",
        fix="move one operand with .to_device() first (real tensors may move onto a capture "
        "device as constants)",
    ),
    RuleSpec(
        id="DL009",
        name="capture-escape",
        severity="error",
        summary="a data-less value stored where it outlives its trace (JAX: a tracer in a "
        "global or nonlocal name, or in an attribute or container from outside the trace)",
        runtime_error="UnexpectedTracerError",
        message="A traced value escapes its trace",
        fix="return the value from the traced function instead of storing it (print or log "
        "it with jax.debug.print / jax.debug.callback)",
    ),
)

#: The fix that guard errors (``CaptureGuardError``, rule DL001) and guard findings give: a
#: guard stops a capture tensor at a boundary the user chose, not at an autodiff call.
GUARD_FIX = (
    "pass a real tensor there: replay the captured program first (dispatch.replay / "
    "Program.run), or check is_capture(t) before the call"
)

RULES_BY_ID: dict[str, RuleSpec] = {r.id: r for r in RULES}
RULES_BY_NAME: dict[str, RuleSpec] = {r.name: r for r in RULES}


def rule(rule_id: str) -> RuleSpec:
    """The catalog entry for ``rule_id`` (e.g. ``"DL001"``); KeyError names the known ids."""
    try:
        return RULES_BY_ID[rule_id]
    except KeyError:
        known = ", ".join(RULES_BY_ID)
        raise KeyError(f"unknown rule id {rule_id!r}; known ids: {known}") from None


def markdown_rules() -> str:
    """The README's "Rules" section body: a table, then one anchored section per rule.

    The README is checked against this text by the tests, so the docs never drift from the
    catalog; regenerate with ``python -m dispatch_lint.catalog``.
    """
    lines = [
        "| id | name | severity | flags | runtime error |",
        "|---|---|---|---|---|",
    ]
    for spec in RULES:
        link = f"[{spec.id}](#{spec.slug})"
        lines.append(
            f"| {link} | `{spec.name}` | {spec.severity} | {spec.summary} | "
            f"`{spec.runtime_error}` |"
        )
    for spec in RULES:
        lines += [
            "",
            f"### {spec.id} {spec.name}",
            "",
            f"**Flags:** {spec.summary}. **At run time:** `{spec.runtime_error}`, "
            f'"{spec.message} ...". **Fix:** {spec.fix}. '
            f"More: `dispatch-lint --explain {spec.id}`.",
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown_rules(), end="")
