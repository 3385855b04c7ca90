"""The README is a user's first contact: its commands and its rule docs must be the real ones."""

from __future__ import annotations

import re
from pathlib import Path

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
