"""The README is a user's first contact: its commands and its rule docs must be the real ones."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from dispatch_lint import catalog

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def quickstart_command(marker: str) -> str:
    after = README.split(f"<!-- quickstart:{marker} -->", 1)[1]
    return re.search(r"```\n(.+?)\n```", after, re.S).group(1).strip()


def test_readme_rule_section_is_generated_from_the_catalog() -> None:
    section = README.split("<!-- rules:start -->\n", 1)[1].split("<!-- rules:end -->", 1)[0]
    assert section == catalog.markdown_rules(), (
        "README rule section is stale: regenerate it from `python -m dispatch_lint.catalog`"
    )


def test_every_rule_has_a_readme_section_its_url_points_to() -> None:
    for spec in catalog.RULES:
        assert f"### {spec.id} {spec.name}\n" in README
        assert spec.url.endswith(f"#{spec.slug}")


def test_quickstart_has_the_two_commands_ci_runs() -> None:
    assert quickstart_command("run").startswith("pip install . && dispatch-lint fixtures/")
    test_command = quickstart_command("test")
    assert test_command.startswith('pip install ".[test]"')
    assert "quickstart:test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def readme_example() -> str:
    section = README.split("## The runtime in 20 lines", 1)[1]
    return re.search(r"```python\n(.+?)```", section, re.S).group(1)


def test_readme_runtime_example_runs_and_stops_at_the_capture_backward(tmp_path: Path) -> None:
    import subprocess
    import sys

    example = tmp_path / "example.py"
    example.write_text(readme_example(), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(example)], capture_output=True, text=True, cwd=tmp_path,
        timeout=120,
    )
    last_line = len(readme_example().splitlines())
    assert done.returncode == 1
    assert "CaptureAutodiffError: Capture tensors do not support autodiff" in done.stderr
    assert f'example.py", line {last_line}' in done.stderr
    assert "tensor(" in done.stdout  # the gradient and the replayed result were printed


def test_readme_runtime_example_is_flagged_by_the_linter_on_the_same_line() -> None:
    from dispatch_lint import lint_source

    found = [(d.line, d.rule) for d in lint_source(readme_example(), path="example.py")]
    assert found == [(len(readme_example().splitlines()), "DL001")]


def test_readme_configuration_example_is_accepted(tmp_path: Path) -> None:
    from dispatch_lint.analyzer.cli import main

    toml = re.search(r"```toml\n(.+?)```", README, re.S).group(1)
    (tmp_path / "pyproject.toml").write_text(toml, encoding="utf-8")
    (tmp_path / "clean.py").write_text("x = 1\n", encoding="utf-8")
    assert main([str(tmp_path / "clean.py"), "--config", str(tmp_path / "pyproject.toml")]) == 0


def _shown_run(command: str) -> tuple[list[str], str]:
    """The arguments and the output of the README's ``$ dispatch-lint ...`` example."""
    after = README.split(f"$ dispatch-lint {command}\n", 1)[1]
    return command.split(), after.split("\n```", 1)[0] + "\n"


def test_readme_example_outputs_are_the_real_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dispatch_lint.analyzer.cli import main

    monkeypatch.delenv("FORCE_COLOR", raising=False)
    (tmp_path / "example.py").write_text(readme_example(), encoding="utf-8")
    for folder, command in ((tmp_path, "example.py"),
                            (ROOT, "fixtures/autodiff_to_plain_move.py")):
        monkeypatch.chdir(folder)
        argv, shown = _shown_run(command)
        main([*argv, "--no-cache"])
        assert capsys.readouterr().out == shown, command


def readme_jax_example() -> str:
    section = README.split("## JAX\n", 1)[1]
    return re.search(r"```python\n(.+?)```", section, re.S).group(1)


def test_readme_jax_example_is_twenty_lines_flagged_where_jax_stops() -> None:
    from dispatch_lint import lint_source

    example = readme_jax_example()
    assert len(example.splitlines()) <= 20
    found = [(d.line, d.rule) for d in lint_source(example, path="example_jax.py")]
    lines = example.splitlines()
    assert found == [(lines.index("    history.append(params)  # kept for a plot later") + 1,
                      "DL009"),
                     (lines.index("    return params - 0.1 * clip(grads, 1.0)") + 1, "DL003")]


def test_readme_jax_example_raises_under_jax_at_the_flagged_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    pytest.importorskip("jax")
    example = tmp_path / "example_jax.py"
    example.write_text(readme_jax_example(), encoding="utf-8")
    done = subprocess.run([sys.executable, str(example)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert done.returncode == 1
    assert "TracerBoolConversionError" in done.stderr
    assert 'example_jax.py", line 17, in step' in done.stderr


def test_readme_jax_example_output_is_the_real_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dispatch_lint.analyzer.cli import main

    monkeypatch.delenv("FORCE_COLOR", raising=False)
    (tmp_path / "example_jax.py").write_text(readme_jax_example(), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    argv, shown = _shown_run("example_jax.py")
    main([*argv, "--no-cache"])
    assert capsys.readouterr().out == shown
