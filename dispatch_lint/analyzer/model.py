"""The user's extensions of the framework models (``[tool.dispatch-lint]`` ``sources``,
``sinks`` and ``sanitizers``), by qualified name.

What the analysis knows about each framework is data in :mod:`dispatch_lint.frameworks`
(the dispatch runtime: :mod:`dispatch_lint.frameworks.dispatch`). Its names are re-exported
here for the modules that read them from this place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dispatch_lint.frameworks.dispatch import (
    AUTODIFF_METHODS,
    CREATORS,
    DATA_READ_BUILTINS,
    DATA_READ_FUNCTIONS,
    DATA_READ_METHODS,
    DEVICE_CLASSES,
    DEVICE_STRINGS,
    NON_TENSOR_ATTRIBUTES,
    RUNTIME,
    SAME_DEVICE_FUNCTIONS,
    SAME_DEVICE_METHODS,
    runtime_name,
)

__all__ = [
    "AUTODIFF_METHODS",
    "CREATORS",
    "DATA_READ_BUILTINS",
    "DATA_READ_FUNCTIONS",
    "DATA_READ_METHODS",
    "DEVICE_CLASSES",
    "DEVICE_STRINGS",
    "NON_TENSOR_ATTRIBUTES",
    "RUNTIME",
    "SAME_DEVICE_FUNCTIONS",
    "SAME_DEVICE_METHODS",
    "Model",
    "UserSink",
    "runtime_name",
]


@dataclass(frozen=True)
class UserSink:
    """A user sink: a capture value passed as ``arg`` (position or keyword) is ``rule``."""

    name: str
    arg: int | str
    rule: str


@dataclass(frozen=True)
class Model:
    """The user's extensions of the model, by qualified name (``[tool.dispatch-lint]``)."""

    sources: frozenset[str] = frozenset()
    sinks: dict[str, tuple[UserSink, ...]] = field(default_factory=dict)
    sanitizers: frozenset[str] = frozenset()
