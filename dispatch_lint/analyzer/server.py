"""``dispatch-lint server``: the language server (LSP over standard input and output).

A third front end beside the CLI and the API, built on pygls and lsprotocol, with no analysis
of its own: every run is :func:`~dispatch_lint.analyzer.api.check_paths` over the open Python
files, with their buffers as overlays, so an unsaved helper module counts for the files that
import it, and findings are reported where the CLI would report them.

- Diagnostics on open, change (debounced: a burst of changes lints once, when it ends) and
  save, and when files change on disk. A run checks every open file together: a change to
  one refreshes every open file that imports it. Results of groups of files that did not
  change are kept in memory (:class:`~dispatch_lint.analyzer.api.MemoryResults`).
- Each diagnostic has the rule id as ``code``, its documentation as ``codeDescription``, the
  catalog's severity, the finding's headline and ``help:`` line as the message, and the trace
  as ``relatedInformation``: one location per step, in whichever file it is.
- Code actions: the finding's fix (a safe one is the preferred quickfix; an unsafe one is
  offered too, its title says so), ``# noqa: DLxxx`` on the line (merged into an existing
  ``# noqa:`` comment there), and ``source.fixAll.dispatch-lint`` for every safe fix of the
  file. Edits go to the client as a ``WorkspaceEdit``; the server never writes a file.
- The configuration is the nearest ``[tool.dispatch-lint]`` above each file, looked up on
  every run (a few ``stat`` calls), so an edited, added or removed ``pyproject.toml``
  applies to the next run; a broken one is a ``window/showMessage``, not a crash.

Positions: the analysis counts columns in characters, LSP in the position encoding the client
and server agreed on (UTF-16 unless the client offers another); pygls's codec counts the
units. Lines are split at ``\r\n``, ``\r`` and ``\n`` only, as LSP and the analysis split
them: the server keeps its own copy of each open document and applies incremental changes
to it, because pygls's copy splits lines as ``str.splitlines`` does (at form feeds too).
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import re
import sys
import tokenize
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, BinaryIO

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidRequest, JsonRpcServerNotInitialized
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import RPCMessage, RPCRequest
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import PositionCodec

from dispatch_lint import __version__
from dispatch_lint.analyzer.api import LintRun, MemoryResults, check_paths
from dispatch_lint.analyzer.config import (
    Config,
    ConfigError,
    find_config_file,
    load_config,
)
from dispatch_lint.analyzer.diagnostics import SAFE, Diagnostic, Edit, FileError
from dispatch_lint.analyzer.report.text import source_lines
from dispatch_lint.analyzer.suppressions import NOQA_PATTERN
from dispatch_lint.catalog import RULES_BY_ID

__all__ = ["DEBOUNCE_SECONDS", "SOURCE", "DispatchLintServer", "serve"]

#: How long the server waits after a change before it lints: a burst of keystrokes lints
#: once. Short, so that findings follow typing closely.
DEBOUNCE_SECONDS = 0.15
#: The ``source`` of every diagnostic, as editors show it.
SOURCE = "dispatch-lint"
#: The kind of the code action that applies every safe fix of a file.
FIX_ALL = f"{lsp.CodeActionKind.SourceFixAll.value}.{SOURCE}"

#: How long a code action request waits for the findings of the text it is about.
_ACTIONS_WAIT_SECONDS = 5.0
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SEVERITY = {"error": lsp.DiagnosticSeverity.Error, "warning": lsp.DiagnosticSeverity.Warning}
#: Tokens that end a line without being code on it.
_LINE_END_TOKENS = (tokenize.NL, tokenize.NEWLINE, tokenize.DEDENT, tokenize.INDENT,
                    tokenize.ENDMARKER)

logger = logging.getLogger(__name__)


# ------------------------------------------------------------------------ what a run saw


@dataclass(frozen=True)
class _Document:
    """An open document: the server's own copy, changed with lines split where LSP splits
    them (pygls's copy splits at form feeds too, so its incremental changes can land on the
    wrong line)."""

    version: int | None
    text: str
    language_id: str


def _applied(text: str, change: lsp.TextDocumentContentChangeEvent, codec: PositionCodec) -> str:
    """``text`` after one ``didChange`` content change (a range's new text, or all of it)."""
    if not isinstance(change, lsp.TextDocumentContentChangePartial):
        return change.text
    starts = [0, *(match.end() for match in _LINE_BREAK.finditer(text))]
    lines = _LINE_BREAK.split(text)

    def offset(position: lsp.Position) -> int:
        if position.line >= len(lines):
            return len(text)
        line = lines[position.line]
        units = 0
        for index, char in enumerate(line):
            if units >= position.character:
                return starts[position.line] + index
            units += codec.client_num_units(char)
        return starts[position.line] + len(line)  # At or past the line's end: its end.

    start, end = offset(change.range.start), offset(change.range.end)
    return text[:start] + change.text + text[max(start, end):]


@dataclass(frozen=True)
class _Buffer:
    """An open Python document as one run saw it."""

    uri: str
    path: str
    version: int | None
    text: str

    @cached_property
    def data(self) -> bytes:
        """The text as the bytes of a file: encoded as its coding cookie says (the analysis
        reads bytes as CPython does), UTF-8 without one."""
        return _encoded(self.text)

    @cached_property
    def lines(self) -> list[str]:
        return _LINE_BREAK.split(self.text)


@dataclass(frozen=True)
class _Shown:
    """The diagnostics published for one document, each with the finding it shows (None
    for a file the analysis failed on), and the buffer they were computed from (code actions
    are built against it)."""

    buffer: _Buffer
    items: tuple[tuple[lsp.Diagnostic, Diagnostic | None], ...]


@dataclass(frozen=True)
class _Outcome:
    """What one run has for the client: diagnostics per document, and messages."""

    shown: tuple[_Shown, ...]
    #: Documents under a configuration that could not be read: their findings are cleared.
    cleared: tuple[_Buffer, ...]
    #: (type, text) for window/showMessage: a broken configuration, once per version of it.
    messages: tuple[tuple[lsp.MessageType, str], ...]
    #: Lines for window/logMessage: notes about imported modules, per-file errors.
    log: tuple[str, ...]


def _encoded(text: str) -> bytes:
    data = text.encode("utf-8", "replace")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        return data
    if encoding in ("utf-8", "utf-8-sig"):
        return data
    try:
        return text.encode(encoding)
    except (LookupError, UnicodeError):
        return data


def _position(codec: PositionCodec, lines: Sequence[str], line: int, column: int) -> lsp.Position:
    """The LSP position of 1-based ``line`` and character ``column`` in ``lines``."""
    row = min(max(line - 1, 0), max(len(lines) - 1, 0))
    text = lines[row] if lines else ""
    return lsp.Position(row, codec.client_num_units(text[: max(column - 1, 0)]))


def _range(codec: PositionCodec, lines: Sequence[str], line: int, column: int,
           end_line: int, end_column: int) -> lsp.Range:
    return lsp.Range(_position(codec, lines, line, column),
                     _position(codec, lines, end_line, end_column))


class _Lines:
    """The lines of the files a trace passes through, for positions in them: an open
    buffer's, else the run's copy of a checked file's bytes, else the file on disk (kept
    while its size and modification time stay the same)."""

    def __init__(self, buffers: Mapping[str, _Buffer], run_sources: Mapping[str, bytes],
                 disk: dict[str, tuple[tuple[int, int], list[str]]]) -> None:
        self._buffers = buffers
        self._sources = {os.path.abspath(path): data for path, data in run_sources.items()}
        self._decoded: dict[str, list[str]] = {}
        self._disk = disk

    def of(self, path: str) -> list[str]:
        buffer = self._buffers.get(path)
        if buffer is not None:
            return buffer.lines
        if path in self._sources:
            if path not in self._decoded:
                self._decoded[path] = source_lines(self._sources[path])
            return self._decoded[path]
        try:
            stat = os.stat(path)
            stamp = (stat.st_size, stat.st_mtime_ns)
            known = self._disk.get(path)
            if known is None or known[0] != stamp:
                known = self._disk[path] = (stamp, source_lines(Path(path).read_bytes()))
            return known[1]
        except OSError:
            return []


# ------------------------------------------------------------------------------ the server


class _Protocol(LanguageServerProtocol):
    """pygls's protocol, answering requests out of turn as the LSP specification says:
    before ``initialize``, a request gets the error ServerNotInitialized and a notification
    is dropped (``exit`` excepted); after ``shutdown``, a request gets InvalidRequest (pygls
    would drop it, and a client waiting for the answer would wait for ever)."""

    _initialize_seen = False

    def handle_message(self, message: RPCMessage) -> None:
        method = getattr(message, "method", None)
        request = isinstance(message, RPCRequest)
        if method == lsp.INITIALIZE:
            self._initialize_seen = True
        elif method is not None and method != lsp.EXIT:
            error = (JsonRpcServerNotInitialized() if not self._initialize_seen
                     else JsonRpcInvalidRequest("the server was shut down")
                     if self._shutdown else None)
            if error is not None:
                if request:
                    self._send_response(message.id, None, error.to_response_error())
                return
        super().handle_message(message)


class DispatchLintServer:
    """The language server: pygls's :class:`LanguageServer` with dispatch-lint's features.

    Lint runs happen one at a time on a worker thread, so the server keeps answering (code
    actions, new changes) while one is under way; their diagnostics are published from the
    event loop, and only for documents that have not changed since the run read them (a
    newer run is then already due).
    """

    def __init__(self, debounce: float = DEBOUNCE_SECONDS) -> None:
        self.ls = LanguageServer(
            SOURCE, __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
            protocol_cls=_Protocol,
        )
        self.debounce = debounce
        self.shut_down = False
        self._worker = ThreadPoolExecutor(1, thread_name_prefix="dispatch-lint")
        self._results = MemoryResults()
        #: Configurations by what they were read from (see :meth:`_config_key`).
        self._configs: dict[tuple[str, int, int], Config | ConfigError] = {}
        self._told: set[tuple[tuple[str, int, int], str]] = set()
        self._disk: dict[str, tuple[tuple[int, int], list[str]]] = {}
        self._shown: dict[str, _Shown] = {}
        self._documents: dict[str, _Document] = {}
        self._logged: set[str] = set()
        self._timer: asyncio.TimerHandle | None = None
        self._running: asyncio.Task[None] | None = None
        self._again = False
        self._delivered = asyncio.Event()
        self._register()

    # ------------------------------------------------------------------ wiring

    def _register(self) -> None:
        def on(method: str, handler: Callable[[Any], Any], options: Any = None) -> None:
            # pygls marks the handler it is given, which a bound method cannot carry.
            if asyncio.iscoroutinefunction(handler):
                async def call(params: Any) -> Any:
                    return await handler(params)
            else:
                def call(params: Any) -> Any:
                    return handler(params)
            self.ls.feature(method, options)(call)

        on(lsp.INITIALIZED, self._initialized)
        on(lsp.SHUTDOWN, self._shutdown)
        on(lsp.TEXT_DOCUMENT_DID_OPEN, self._opened)
        on(lsp.TEXT_DOCUMENT_DID_CHANGE, self._changed)
        on(lsp.TEXT_DOCUMENT_DID_SAVE, self._changed_now)
        on(lsp.TEXT_DOCUMENT_DID_CLOSE, self._closed)
        on(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES, self._changed_now)
        on(
            lsp.TEXT_DOCUMENT_CODE_ACTION,
            self._code_actions,
            lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL]),
        )

    def _initialized(self, params: lsp.InitializedParams) -> None:
        # Files changed outside the editor (a checkout, a save elsewhere) re-lint the open
        # ones; the configuration is looked up on every run, so it needs no watcher.
        if _capability(self.ls.client_capabilities,
                       "workspace", "did_change_watched_files", "dynamic_registration"):
            watchers = [lsp.FileSystemWatcher(glob_pattern=pattern)
                        for pattern in ("**/*.py", "**/pyproject.toml")]
            self.ls.client_register_capability(lsp.RegistrationParams([lsp.Registration(
                id="dispatch-lint-files",
                method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=lsp.DidChangeWatchedFilesRegistrationOptions(watchers),
            )]))

    def _shutdown(self, params: None) -> None:
        self.shut_down = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _opened(self, params: lsp.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        self._documents[item.uri] = _Document(item.version, item.text, item.language_id)
        self._schedule(0.0)

    def _changed(self, params: lsp.DidChangeTextDocumentParams) -> None:
        document = self._documents.get(params.text_document.uri)
        if document is None:
            return  # Never opened: nothing to lint.
        text = document.text
        for change in params.content_changes:
            text = _applied(text, change, self.ls.workspace.position_codec)
        self._documents[params.text_document.uri] = _Document(
            params.text_document.version, text, document.language_id
        )
        self._schedule(self.debounce)

    def _changed_now(self, params: object) -> None:
        self._schedule(0.0)

    def _closed(self, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        self._documents.pop(uri, None)
        if self._shown.pop(uri, None) is not None:
            self._publish(uri, None, [])
        # Its buffer no longer stands in for the file: files importing it see the disk.
        self._schedule(0.0)

    # ------------------------------------------------------------------ scheduling

    def _schedule(self, delay: float) -> None:
        """Lint the open files ``delay`` seconds from now, unless asked again before."""
        if self.shut_down:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(delay, self._start)

    def _start(self) -> None:
        self._timer = None
        if self._running is not None and not self._running.done():
            self._again = True  # One more run once this one ends: it read older text.
            return
        self._running = asyncio.get_running_loop().create_task(self._lint_until_current())

    async def _lint_until_current(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            self._again = False
            buffers = self._open_buffers()
            try:
                outcome = await loop.run_in_executor(self._worker, self._lint, buffers)
            except Exception as error:  # A bug must not stop the server.
                logger.exception("dispatch-lint: the lint run failed")
                self._tell(lsp.MessageType.Error,
                           f"dispatch-lint: internal error: {type(error).__name__}: {error}")
            else:
                self._deliver(outcome)
            # Wake the code action requests waiting for this run (see _current).
            self._delivered.set()
            self._delivered = asyncio.Event()
            if not self._again or self.shut_down:
                return

    def _open_buffers(self) -> dict[str, _Buffer]:
        """The open Python documents with a file path, by absolute path."""
        buffers: dict[str, _Buffer] = {}
        for uri, document in self._documents.items():
            path = to_fs_path(uri)
            if path is None:
                continue
            if not (path.endswith((".py", ".pyw")) or document.language_id == "python"):
                continue
            path = os.path.abspath(path)
            buffers[path] = _Buffer(uri, path, document.version, document.text)
        return buffers

    def _deliver(self, outcome: _Outcome) -> None:
        documents = self._documents
        for kind, message in outcome.messages:
            self._tell(kind, message)
        # Notes repeat on every run while their cause stays: each is logged when it appears.
        for line in outcome.log:
            if line not in self._logged:
                self.ls.window_log_message(lsp.LogMessageParams(lsp.MessageType.Log, line))
        self._logged = set(outcome.log)
        for buffer in outcome.cleared:
            if self._shown.pop(buffer.uri, None) is not None:
                self._publish(buffer.uri, buffer.version, [])
        for shown in outcome.shown:
            document = documents.get(shown.buffer.uri)
            if document is None or document.version != shown.buffer.version:
                continue  # Closed or changed since: a newer run is due.
            self._shown[shown.buffer.uri] = shown
            self._publish(shown.buffer.uri, shown.buffer.version,
                          [item for item, _ in shown.items])

    def _publish(self, uri: str, version: int | None, diagnostics: list[lsp.Diagnostic]) -> None:
        self.ls.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    def _tell(self, kind: lsp.MessageType, message: str) -> None:
        self.ls.window_show_message(lsp.ShowMessageParams(kind, message))

    # ------------------------------------------------------------------ linting (worker)

    def _lint(self, buffers: dict[str, _Buffer]) -> _Outcome:
        """Check every open file (on the worker thread): one :func:`check_paths` per
        configuration, every buffer an overlay."""
        overlays = {path: buffer.data for path, buffer in buffers.items()}
        by_config: dict[int, tuple[Config, list[_Buffer]]] = {}
        cleared: list[_Buffer] = []
        messages: list[tuple[lsp.MessageType, str]] = []
        for buffer in buffers.values():
            config = self._config_for(buffer.path)
            if isinstance(config, ConfigError):
                cleared.append(buffer)
                # Once per version of the file: every keystroke must not show it again.
                told = (self._config_key(buffer.path)[0], str(config))
                if told not in self._told:
                    self._told.add(told)
                    messages.append((lsp.MessageType.Error, f"dispatch-lint: {config}"))
                continue
            by_config.setdefault(id(config), (config, []))[1].append(buffer)
        shown: list[_Shown] = []
        log: list[str] = []
        codec = self.ls.workspace.position_codec
        related = _capability(self.ls.client_capabilities,
                              "text_document", "publish_diagnostics", "related_information")
        for config, named in by_config.values():
            run = check_paths(
                [buffer.path for buffer in named], config, force_exclude=True, jobs=1,
                overlays=overlays, results=self._results,
            )
            lines = _Lines(buffers, run.sources, self._disk)
            found: dict[str, list[Diagnostic]] = {}
            for diagnostic in run.report.diagnostics:
                found.setdefault(os.path.abspath(diagnostic.path), []).append(diagnostic)
            errors = {os.path.abspath(error.path): error for error in run.report.errors}
            for buffer in named:
                items: list[tuple[lsp.Diagnostic, Diagnostic | None]] = [
                    (_to_lsp(d, buffer.lines, lines, buffers, codec, related), d)
                    for d in found.get(buffer.path, ())
                ]
                error = errors.get(buffer.path)
                if error is not None:
                    items.append((_error_diagnostic(error), None))
                shown.append(_Shown(buffer, tuple(items)))
            log.extend(_log_lines(run))
        return _Outcome(tuple(shown), tuple(cleared), tuple(messages), tuple(log))

    def _config_for(self, path: str) -> Config | ConfigError:
        """The configuration of the file at ``path`` as it is on disk now: read again when
        the file holding it is new, edited or gone (see :meth:`_config_key`)."""
        key, found = self._config_key(path)
        config = self._configs.get(key)
        if config is None:
            if found is None:
                # No configuration file: the defaults, with imports found from the
                # workspace folder holding the file (the CLI's is its current folder).
                config = Config(root=Path(key[0]))
            else:
                try:
                    config = load_config(found)
                except ConfigError as error:
                    config = error
            self._configs[key] = config
        return config

    def _config_key(self, path: str) -> tuple[tuple[str, int, int], Path | None]:
        """What the configuration of ``path`` is read from, as (file, size, modification
        time), or (workspace folder, 0, 0) when there is no file; and the file."""
        place = Path(path).parent
        while not place.exists() and place.parent != place:
            place = place.parent
        found = find_config_file(place)
        if found is None:
            return (self._workspace_folder(path), 0, 0), None
        try:
            stat = found.stat()
        except OSError:
            return (str(found), -1, -1), found
        return (str(found), stat.st_size, stat.st_mtime_ns), found

    def _workspace_folder(self, path: str) -> str:
        """The innermost workspace folder holding ``path``, else the root, else the current
        folder."""
        folders = [to_fs_path(folder.uri) for folder in self.ls.workspace.folders.values()]
        inside = [
            os.path.abspath(folder) for folder in folders
            if folder is not None and path.startswith(os.path.join(os.path.abspath(folder), ""))
        ]
        if inside:
            return max(inside, key=len)
        root = self.ls.workspace.root_path
        return os.path.abspath(root) if root else os.getcwd()

    # ------------------------------------------------------------------ code actions

    async def _code_actions(self, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        shown = await self._current(params.text_document.uri)
        if shown is None:
            return []
        only = params.context.only

        def wanted(kind: str) -> bool:
            return only is None or any(kind == k or kind.startswith(f"{k}.") for k in only)

        ours = [d for d in params.context.diagnostics if d.source == SOURCE]
        if ours:
            chosen = [item for item in shown.items
                      if any(_same(item[0], d) for d in ours)]
        else:
            chosen = [item for item in shown.items if _overlaps(item[0].range, params.range)]
        codec = self.ls.workspace.position_codec
        buffer = shown.buffer
        actions: list[lsp.CodeAction] = []
        if wanted(lsp.CodeActionKind.QuickFix):
            noqa_done: set[tuple[int, str]] = set()
            for item, finding in chosen:
                if finding is None:
                    continue
                if finding.fix is not None:
                    actions.append(self._fix_action(item, finding, buffer, codec))
                if finding.rule != "DL000" and (finding.line, finding.rule) not in noqa_done:
                    noqa_done.add((finding.line, finding.rule))
                    action = self._noqa_action(item, finding, buffer, codec)
                    if action is not None:
                        actions.append(action)
        if wanted(FIX_ALL):
            action = self._fix_all_action(shown, codec)
            if action is not None:
                actions.append(action)
        return actions

    async def _current(self, uri: str) -> _Shown | None:
        """The findings of the document at ``uri`` for its current text: waits for the run
        that is due when the text changed since the last one (an editor asks for code
        actions right after a keystroke, or on save); None when there are none."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _ACTIONS_WAIT_SECONDS
        while True:
            shown, document = self._shown.get(uri), self._documents.get(uri)
            if document is None:
                return None
            if shown is not None and shown.buffer.version == document.version:
                return shown
            due = self._timer is not None or (
                self._running is not None and not self._running.done()
            )
            if not due or loop.time() >= deadline:
                return None
            try:
                await asyncio.wait_for(self._delivered.wait(), deadline - loop.time())
            except asyncio.TimeoutError:
                return None

    def _fix_action(self, item: lsp.Diagnostic, finding: Diagnostic, buffer: _Buffer,
                    codec: PositionCodec) -> lsp.CodeAction:
        fix = finding.fix
        assert fix is not None
        safe = fix.applicability == SAFE
        title = f"Fix {finding.rule}: {fix.title}"
        if not safe and "unsafe" not in fix.title.lower():
            title += " (unsafe fix)"
        lines = buffer.lines
        edits = [_text_edit(codec, lines, edit) for edit in fix.edits]
        return lsp.CodeAction(
            title=title, kind=lsp.CodeActionKind.QuickFix, diagnostics=[item],
            is_preferred=safe, edit=self._workspace_edit(buffer, edits),
        )

    def _noqa_action(self, item: lsp.Diagnostic, finding: Diagnostic, buffer: _Buffer,
                     codec: PositionCodec) -> lsp.CodeAction | None:
        edit = noqa_edit(buffer.text, finding.line, finding.rule)
        if edit is None:
            return None
        return lsp.CodeAction(
            title=f"Suppress {finding.rule} on this line (# noqa: {finding.rule})",
            kind=lsp.CodeActionKind.QuickFix, diagnostics=[item],
            edit=self._workspace_edit(buffer, [_text_edit(codec, buffer.lines, edit)]),
        )

    def _fix_all_action(self, shown: _Shown, codec: PositionCodec) -> lsp.CodeAction | None:
        from dispatch_lint.analyzer.fixes import fix_files

        findings = [finding for _, finding in shown.items if finding is not None]
        buffer = shown.buffer
        # The same refusal as --fix: a result CPython cannot compile is never offered.
        changes, _ = fix_files(findings, {buffer.path: buffer.data}, unsafe=False)
        if not changes:
            return None
        after = _decoded(changes[0].after)
        if buffer.text.startswith("\ufeff") and not after.startswith("\ufeff"):
            after = "\ufeff" + after
        edit = _replacement(buffer.text, after)
        return lsp.CodeAction(
            title="Fix all safe dispatch-lint fixes", kind=FIX_ALL,
            diagnostics=[item for item, finding in shown.items if finding in changes[0].fixed],
            edit=self._workspace_edit(buffer, [_text_edit(codec, buffer.lines, edit)]),
        )

    def _workspace_edit(self, buffer: _Buffer, edits: list[lsp.TextEdit]) -> lsp.WorkspaceEdit:
        # With the document's version, a client refuses the edit if the text moved on.
        if _capability(self.ls.client_capabilities,
                       "workspace", "workspace_edit", "document_changes"):
            return lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(
                text_document=lsp.OptionalVersionedTextDocumentIdentifier(
                    uri=buffer.uri, version=buffer.version),
                edits=edits,  # type: ignore[arg-type]
            )])
        return lsp.WorkspaceEdit(changes={buffer.uri: edits})

    # ------------------------------------------------------------------ running

    def serve(self, stdin: BinaryIO, stdout: BinaryIO) -> int:
        """Speak LSP on ``stdin``/``stdout`` until the client says exit (or goes away);
        the exit status LSP asks for: 0 after a shutdown request, else 1."""
        # Load the analysis (libcst, the engine, the rules: about a second) before the
        # first message, while the editor starts up, so that the first findings after an
        # open or a change do not wait for it.
        _warm_up()
        self.ls.start_io(stdin, stdout)
        self._worker.shutdown(wait=False, cancel_futures=True)
        return 0 if self.shut_down else 1


def serve() -> int:
    """``dispatch-lint server``: run the language server on this process's standard input
    and output."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    # Standard output is the protocol's: anything else printed there would corrupt it.
    sys.stdout = sys.stderr
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="dispatch-lint server: %(levelname)s: %(message)s")
    return DispatchLintServer().serve(stdin, stdout)


def _warm_up() -> None:
    from dispatch_lint.analyzer.api import lint_source

    lint_source("from dispatch_lint import runtime as d\nd.ones((1,)).sum().backward()\n")


# ------------------------------------------------------------------------ conversions


def _to_lsp(d: Diagnostic, own: Sequence[str], lines: _Lines, buffers: Mapping[str, _Buffer],
            codec: PositionCodec, related: bool) -> lsp.Diagnostic:
    """``d`` as an LSP diagnostic of the document whose lines are ``own``."""
    spec = RULES_BY_ID.get(d.rule)
    if related or not d.trace:
        message = d.short_message + (f"\nhelp: {d.help}" if d.help else "")
    else:
        message = d.message  # It says where the value came from, which the trace would.
    steps = []
    for step in d.trace:
        path = os.path.abspath(step.path)
        at = _position(codec, lines.of(path), step.line, step.column)
        buffer = buffers.get(path)
        steps.append(lsp.DiagnosticRelatedInformation(
            location=lsp.Location(buffer.uri if buffer else from_fs_path(path) or path,
                                  lsp.Range(at, at)),
            message=step.message,
        ))
    return lsp.Diagnostic(
        range=_range(codec, own, d.line, d.column, d.end_line, d.end_column),
        message=message,
        severity=_SEVERITY.get(d.severity, lsp.DiagnosticSeverity.Error),
        code=d.rule,
        code_description=lsp.CodeDescription(href=spec.url) if spec is not None else None,
        source=SOURCE,
        related_information=steps or None,
    )


def _error_diagnostic(error: FileError) -> lsp.Diagnostic:
    start = lsp.Position(0, 0)
    return lsp.Diagnostic(
        range=lsp.Range(start, start), severity=lsp.DiagnosticSeverity.Error, source=SOURCE,
        message=f"dispatch-lint could not check this file: {error.message}",
    )


def _log_lines(run: LintRun) -> list[str]:
    return [f"{note.path}: note: {note.message}" for note in run.notes] + [
        f"{error.path}: error: {error.message}" for error in run.report.errors
    ]


def _text_edit(codec: PositionCodec, lines: Sequence[str], edit: Edit) -> lsp.TextEdit:
    return lsp.TextEdit(
        range=_range(codec, lines, edit.line, edit.column, edit.end_line, edit.end_column),
        new_text=edit.content,
    )


def _replacement(before: str, after: str) -> Edit:
    """One edit turning the text ``before`` into ``after``: what lies between their common
    beginning and end."""
    start = 0
    limit = min(len(before), len(after))
    while start < limit and before[start] == after[start]:
        start += 1
    end = 0
    while end < limit - start and before[-1 - end] == after[-1 - end]:
        end += 1
    # Never between the two characters of a \r\n line break: the edit would split it.
    if 0 < start < len(before) and before[start - 1 : start + 1] == "\r\n":
        start -= 1
    if 0 < end < len(before) and before[-1 - end : len(before) - end + 1] == "\r\n":
        end -= 1

    def place(offset: int) -> tuple[int, int]:
        head = before[:offset]
        breaks = list(_LINE_BREAK.finditer(head))
        return len(breaks) + 1, offset - (breaks[-1].end() if breaks else 0) + 1

    return Edit(*place(start), *place(len(before) - end), after[start:len(after) - end])


def _decoded(data: bytes) -> str:
    """``data`` decoded as :func:`_encoded` encoded it."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeError):
        return data.decode("utf-8", "replace")


def _same(ours: lsp.Diagnostic, theirs: lsp.Diagnostic) -> bool:
    return ours.code == theirs.code and ours.range == theirs.range


def _overlaps(a: lsp.Range, b: lsp.Range) -> bool:
    """Whether ``a`` and ``b`` share a line: a cursor anywhere on a finding's line asks
    for its actions."""
    return a.start.line <= b.end.line and b.start.line <= a.end.line


def _capability(capabilities: object, *names: str) -> bool:
    for name in names:
        capabilities = getattr(capabilities, name, None)
        if capabilities is None:
            return False
    return bool(capabilities)


# ------------------------------------------------------------------------ noqa comments


def noqa_edit(text: str, line: int, rule: str) -> Edit | None:
    """The edit that silences ``rule`` on 1-based ``line`` of the module ``text``: ``rule``
    added to the ``# noqa:`` list of a comment on the line, else ``  # noqa: RULE`` at the
    line's end (after any comment there, which stays as it is). None when the line has no
    place for a comment: it ends inside a string or with a backslash continuation, or it
    already has a bare ``# noqa`` (which silences everything)."""
    lines = _LINE_BREAK.split(text)
    if not 1 <= line <= len(lines):
        return None
    comment: tokenize.TokenInfo | None = None
    try:
        # Universal newlines: tokenize's line numbers then match the LSP's and ours.
        for token in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
            if token.start[0] > line:
                break
            if token.type in _LINE_END_TOKENS:
                continue
            if token.start[0] <= line < token.end[0]:
                return None  # A string (or f-string part) runs on past this line.
            if token.type == tokenize.COMMENT and token.start[0] == line:
                comment = token
    except (tokenize.TokenError, SyntaxError):
        pass  # The part before the error was read; a comment there is still found.
    code = lines[line - 1]
    if comment is None:
        end = len(code.rstrip())
        if code[:end].endswith("\\"):
            return None
        return Edit(line, end + 1, line, end + 1, f"  # noqa: {rule}")
    found = NOQA_PATTERN.search(comment.string)
    if found is not None:
        if found["codes"] is None:
            return None
        column = comment.start[1] + found.end("codes") + 1
        return Edit(line, column, line, column, f", {rule}")
    column = comment.start[1] + len(comment.string) + 1
    return Edit(line, column, line, column, f"  # noqa: {rule}")
