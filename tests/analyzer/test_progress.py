"""A long run on a terminal shows a progress bar on stderr, under a real pseudo-terminal; the
report on stdout stays plain, and the bar is gone when the run ends."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pty = pytest.importorskip("pty")


def test_a_200_file_run_on_a_terminal_shows_a_progress_bar(tmp_path: Path) -> None:
    for index in range(200):
        (tmp_path / f"module{index}.py").write_text(
            "from dispatch_lint import runtime as dispatch\n\n"
            f"x{index} = dispatch.ones((2,))\n"
        )
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "dispatch_lint.analyzer.cli", ".", "--no-cache", "--jobs", "1"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=follower,
        env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "100"},
    )
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the other end closed: the run is over
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert process.stdout is not None
    out = process.stdout.read()
    assert process.wait(timeout=300) == 0
    assert out == b"All checks passed (200 files checked).\n"
    terminal = shown.decode("utf-8", errors="replace")
    assert "reading 200 files" in terminal
    assert "checked 200/200 files" in terminal
    assert "\u2501" * 10 in terminal  # the bar
    # transient: the display is erased at the end (the cursor comes back, the line goes)
    assert terminal.endswith("\x1b[2K") and "\x1b[?25h" in terminal
