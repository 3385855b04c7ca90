"""The frameworks the analysis knows, one model each (:mod:`.model` is their shape).

A file gets the models of the frameworks it imports; the ``frameworks`` configuration key
restricts the set (default: every framework here). Adding a framework means adding a model
module and listing it in :data:`FRAMEWORKS`.

Pure data and light: the byte prefilter asks :class:`Prefilter` on every run, before
anything is parsed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from dispatch_lint.frameworks import dispatch, jax
from dispatch_lint.frameworks.model import FrameworkModel

__all__ = [
    "FRAMEWORKS",
    "FrameworkModel",
    "NAMES",
    "enabled_models",
    "get_model",
    "Prefilter",
    "unknown_names",
]

#: Every framework the package knows, in the order their names are listed to users.
FRAMEWORKS: tuple[FrameworkModel, ...] = (dispatch.MODEL, jax.MODEL)
NAMES: tuple[str, ...] = tuple(model.name for model in FRAMEWORKS)
_BY_NAME = {model.name: model for model in FRAMEWORKS}


def get_model(name: str) -> FrameworkModel:
    """The model of framework ``name``; KeyError names the known frameworks."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown framework {name!r}; known: {', '.join(NAMES)}") from None


def unknown_names(names: Iterable[str]) -> list[str]:
    """The names among ``names`` that are no framework's."""
    return [name for name in names if name not in _BY_NAME]


def enabled_models(names: Sequence[str] | None) -> tuple[FrameworkModel, ...]:
    """The models a run uses: those named (in the package's order), or all when None."""
    if names is None:
        return FRAMEWORKS
    chosen = set(names)
    return tuple(model for model in FRAMEWORKS if model.name in chosen)


class Extensions(Protocol):
    """What the prefilter needs of a run's settings (the engine's ``AnalysisSettings``)."""

    frameworks: Sequence[str] | None
    sources: Sequence[str]
    sanitizers: Sequence[str]
    sinks: Sequence[Any]  # each with a ``name``


class Prefilter:
    """What a file's bytes must contain for it to seed the data-flow analysis: the mention
    of an enabled framework (``dispatch_lint``; an import of ``jax``) or the last component
    of a configured source, sink or sanitizer name. Files that mention none of them, and
    that no such file imports, cannot produce a finding. The engine's prefilter and the
    grouping of a run into independent groups both ask it (called with a file's bytes)."""

    def __init__(self, settings: Extensions | None = None) -> None:
        names = settings.frameworks if settings is not None else None
        self.models = enabled_models(names)
        self.names: tuple[bytes, ...] = () if settings is None else tuple(dict.fromkeys(
            name.rsplit(".", 1)[-1].encode()
            for name in (*settings.sources, *settings.sanitizers,
                         *(sink.name for sink in settings.sinks))))

    def __call__(self, source: bytes) -> bool:
        return (any(model.mentioned_in(source) for model in self.models)
                or self.mentions_a_name(source))

    def mentions_a_name(self, source: bytes) -> bool:
        """Whether ``source`` names a configured source, sink or sanitizer."""
        return any(name in source for name in self.names)
