"""What a user reads, byte for byte: the framed text format and ``--output-format concise`` on
a few fixtures, against golden files in ``tests/analyzer/data/golden/``.

After a deliberate change of the output, regenerate them with
``DISPATCH_LINT_REGENERATE_GOLDEN=1 python -m pytest tests/analyzer/test_golden.py`` and read
the diff before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dispatch_lint.analyzer import cli

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parent / "data" / "golden"
#: A DL001 with a long trace, a safe DL007 fix, a DL004 warning with an unsafe fix, a finding
#: at a call with the callee's lines in the trace, and a guard that certainly raises.
FIXTURES = [
    "fixtures/alias_chain.py",
    "fixtures/autodiff_to_plain_move.py",
    "fixtures/autodiff_capture_keyword.py",
    "fixtures/helper_mixed_move.py",
    "fixtures/guard_ensure_not_capture_raises.py",
]


@pytest.mark.parametrize("output_format", ["text", "concise"])
def test_output_matches_the_golden_file(
    output_format: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    code = cli.main([*FIXTURES, "--no-cache", "--output-format", output_format])
    out, err = capsys.readouterr()
    assert (code, err) == (1, "")
    golden = GOLDEN / f"fixtures.{output_format}.txt"
    if os.environ.get("DISPATCH_LINT_REGENERATE_GOLDEN"):
        golden.write_text(out, encoding="utf-8")
    assert out == golden.read_text(encoding="utf-8")
