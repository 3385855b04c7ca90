"""Calls of what is neither the checked tree nor the runtime: builtins and other libraries.

Only what changes where values flow is modelled (``list``, ``zip``, ``map``, ``getattr``,
``functools.partial``, ...) and the functions that read a tensor's data (``float``,
``np.asarray``); every other call gives an unknown value.
"""

from __future__ import annotations

import libcst as cst

from dispatch_lint.frameworks import dispatch
from dispatch_lint.analyzer.values import (
    EMPTY,
    UNKNOWN,
    Str,
    Tup,
    Value,
    has_tensor,
    is_tensorish,
    join_all,
)


class ExternalCalls:
    """Calls of builtins and of libraries outside the checked tree."""

    def call_external(self, qualname: str, args: tuple[Value, ...], kwargs: dict[str, Value],
                      node: cst.Call) -> Value:
        if qualname.startswith("builtins."):
            name = qualname[len("builtins."):]
            if name in dispatch.DATA_READ_BUILTINS and args and has_tensor(args[0]):
                self.emit("read", (args[0].filter(is_tensorish),), f"{name}()", node,
                          "read by `{code}`")
                return Value.of(UNKNOWN)
            if name == "format" and len(args) > 1 and has_tensor(args[0]):
                self.emit("read", (args[0].filter(is_tensorish),), "format()", node,
                          "read by `{code}`")
                return Value.of(UNKNOWN)
            if name in ("list", "tuple", "sorted", "reversed", "iter", "set", "frozenset"):
                return self.box_of("list", node, self.elements(args[0]) if args else EMPTY)
            if name == "next" and args:
                return self.elements(args[0]) or Value.of(UNKNOWN)
            if name == "enumerate" and args:
                return self.box_of("list", node, Value.of(Tup((Value.of(UNKNOWN),
                                                               self.elements(args[0])))))
            if name == "zip" and args:
                return self.box_of("list", node, Value.of(Tup(tuple(
                    self.elements(a) or Value.of(UNKNOWN) for a in args))))
            if "key" in kwargs and args and name in ("max", "min", "sorted"):
                self.call_value(kwargs["key"], (self.elements(args[0]),), {}, node)
            if name in ("map", "filter") and len(args) > 1:
                result = self.call_value(args[0], (self.elements(args[1]),), {}, node)
                return self.box_of("list", node, result if name == "map" else
                                   self.elements(args[1]))
            if name in ("sum", "max", "min") and args:
                return self.elements(args[0]).filter(is_tensorish) or Value.of(UNKNOWN)
            if name == "getattr" and len(args) >= 2:
                names = [a.text for a in args[1] if isinstance(a, Str)]
                if len(names) == 1:
                    return self.attribute(args[0], names[0], node)
            if name == "super":
                return self.program.super_value(self)
            if name == "dict":
                return self.box_of("dict", node, join_all(kwargs.values()))
            return Value.of(UNKNOWN)
        if qualname in dispatch.DATA_READ_FUNCTIONS and args and has_tensor(args[0]):
            self.emit("read", (args[0].filter(is_tensorish),), qualname.split(".")[-1] + "()",
                      node, "read by `{code}`")
        if qualname in ("functools.partial",) and args:
            return args[0]
        return Value.of(UNKNOWN)
