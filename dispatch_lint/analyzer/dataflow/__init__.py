"""The abstract interpreter: one module per concept of the language it follows.

:class:`Program` holds the whole checked program and drives the fixpoint;
:class:`FunctionRun` analyses one function body, module top level or lambda in one context.
See :mod:`.run` for the map of the modules.
"""

from __future__ import annotations

from dispatch_lint.analyzer.dataflow.calls import is_callable_object
from dispatch_lint.analyzer.dataflow.program import Program
from dispatch_lint.analyzer.dataflow.run import FunctionRun
from dispatch_lint.analyzer.dataflow.state import State
from dispatch_lint.analyzer.dataflow.syntax import dotted_name

__all__ = ["FunctionRun", "Program", "State", "dotted_name", "is_callable_object"]
