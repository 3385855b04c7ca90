"""Shared set-up of the runtime tests."""

from __future__ import annotations

pytest_plugins = ["pytester"]
