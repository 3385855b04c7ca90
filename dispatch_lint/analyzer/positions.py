"""Line and column positions of libcst nodes, computed only for files that need them.

Resolving positions for every file (libcst's ``PositionProvider`` through a
``MetadataWrapper``) costs a deep copy plus a code-generation pass per file. The analysis
does not need positions at all; only files that end up holding a finding or a trace step do,
so the engine asks for them there, once per file, with one code-generation pass over the
tree as parsed (no copy).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import CodeRange

__all__ = ["node_positions"]


class _Recorder:
    """Stands in for the metadata provider the position-recording codegen state writes to."""

    __slots__ = ("_computed",)

    def __init__(self) -> None:
        self._computed: dict[cst.CSTNode, CodeRange] = {}


def node_positions(module: cst.Module) -> dict[cst.CSTNode, CodeRange]:
    """Syntactic start/end of every node of ``module`` (lines 1-based, columns 0-based)."""
    try:
        from libcst.metadata.position_provider import PositionProvidingCodegenState
    except ImportError:  # pragma: no cover - a libcst without the internal state class
        return _positions_through_wrapper(module)
    recorder = _Recorder()
    state = PositionProvidingCodegenState(
        default_indent=module.default_indent,
        default_newline=module.default_newline,
        provider=recorder,  # type: ignore[arg-type]
    )
    module._codegen(state)
    return recorder._computed


def _positions_through_wrapper(module: cst.Module) -> dict[cst.CSTNode, CodeRange]:
    from libcst.metadata import MetadataWrapper, PositionProvider

    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    return dict(wrapper.resolve(PositionProvider))
