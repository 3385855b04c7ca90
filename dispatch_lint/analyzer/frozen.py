"""Frozen dataclasses that are made as fast as plain objects.

A frozen dataclass's generated ``__init__`` stores each field with
``object.__setattr__(self, name, value)``, which is about twice the cost of making a plain
object. The analysis makes millions of such records (atoms, trace steps, events): over
fixtures/, a twentieth of its time was spent in those ``__init__`` methods.

:func:`frozen` is ``dataclass(frozen=True)`` with an ``__init__`` that stores the fields in
the instance's ``__dict__`` at once. Everything else (equality, hashing, ``repr``,
``dataclasses.replace``, immutability after construction) is the dataclass's own.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

__all__ = ["frozen"]

_T = TypeVar("_T")


def frozen(cls: type[_T]) -> type[_T]:
    """``@dataclass(frozen=True)`` with a faster ``__init__`` (see the module's docstring).

    A class that needs what the faster ``__init__`` does not do (``__post_init__``, init-only
    variables, ``__slots__``, keyword-only fields) keeps the dataclass's own."""
    made = dataclasses.dataclass(frozen=True)(cls)
    fields = dataclasses.fields(made)
    if (
        hasattr(made, "__post_init__")
        or "__slots__" in made.__dict__
        or any(f.kw_only is True for f in fields)
        or any(isinstance(f.type, dataclasses.InitVar) for f in fields)
    ):
        return made
    made.__init__ = _fast_init(made.__qualname__, fields)  # type: ignore[misc]
    return made


def _fast_init(qualname: str, fields: tuple[dataclasses.Field[Any], ...]) -> Any:
    """The source of an ``__init__`` storing ``fields`` in ``self.__dict__``, compiled."""
    namespace: dict[str, Any] = {"_MISSING": dataclasses.MISSING}
    parameters: list[str] = []
    stores: list[str] = []
    for index, f in enumerate(fields):
        default = f"_default_{index}"
        factory = f"_factory_{index}"
        if f.default is not dataclasses.MISSING:
            namespace[default] = f.default
        if f.default_factory is not dataclasses.MISSING:
            namespace[factory] = f.default_factory
        if not f.init:
            if f.default is not dataclasses.MISSING:
                stores.append(f"{f.name}={default}")
            elif f.default_factory is not dataclasses.MISSING:
                stores.append(f"{f.name}={factory}()")
            continue
        if f.default is not dataclasses.MISSING:
            parameters.append(f"{f.name}={default}")
        elif f.default_factory is not dataclasses.MISSING:
            parameters.append(f"{f.name}=_MISSING")
            stores.append(f"{f.name}={factory}() if {f.name} is _MISSING else {f.name}")
            continue
        else:
            parameters.append(f.name)
        stores.append(f"{f.name}={f.name}")
    body = f"self.__dict__.update({', '.join(stores)})" if stores else "pass"
    source = f"def __init__(self, {', '.join(parameters)}):\n    {body}\n"
    exec(source, namespace)  # noqa: S102 - what dataclasses itself does to make __init__
    init = namespace["__init__"]
    init.__qualname__ = f"{qualname}.__init__"
    return init
