"""The language server, as an editor sees it: pygls's LSP client starts ``python -m
dispatch_lint server`` over stdio and drives a session (initialize, didOpen, didChange,
publishDiagnostics, codeAction, shutdown, exit)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pygls.lsp.client import BaseLanguageClient
from pygls.uris import from_fs_path, to_fs_path

from dispatch_lint.analyzer.server import noqa_edit
from dispatch_lint.catalog import RULES_BY_ID

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
#: Only guards against a hung session; no test depends on how fast the server answers.
PATIENCE = 60.0
_LINE_BREAK = re.compile(r"\r\n|\r|\n")

CAPABILITIES = lsp.ClientCapabilities(
    text_document=lsp.TextDocumentClientCapabilities(
        publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(
            related_information=True, version_support=True
        ),
        code_action=lsp.CodeActionClientCapabilities(is_preferred_support=True),
    ),
    workspace=lsp.WorkspaceClientCapabilities(
        workspace_edit=lsp.WorkspaceEditClientCapabilities(document_changes=True),
        did_change_watched_files=lsp.DidChangeWatchedFilesClientCapabilities(
            dynamic_registration=True
        ),
    ),
)


class Session:
    """One editor session with the server: documents the client has open, and everything
    the server sent (diagnostics, messages, registrations)."""

    def __init__(self, root: Path, capabilities: lsp.ClientCapabilities = CAPABILITIES) -> None:
        self.root = root
        self.capabilities = capabilities
        self.client = BaseLanguageClient("dispatch-lint-tests", "1")
        self.published: list[lsp.PublishDiagnosticsParams] = []
        self.messages: list[lsp.ShowMessageParams] = []
        self.registrations: list[lsp.Registration] = []
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.returncode: int | None = None
        self._news = asyncio.Event()

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
            self.published.append(params)
            self._news.set()

        @self.client.feature(lsp.WINDOW_SHOW_MESSAGE)
        def _message(params: lsp.ShowMessageParams) -> None:
            self.messages.append(params)
            self._news.set()

        @self.client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
        def _register(params: lsp.RegistrationParams) -> None:
            self.registrations.extend(params.registrations)

    async def __aenter__(self) -> Session:
        await self.client.start_io(sys.executable, "-m", "dispatch_lint", "server",
                                   cwd=str(self.root))
        result = await asyncio.wait_for(self.client.initialize_async(lsp.InitializeParams(
            capabilities=self.capabilities, process_id=os.getpid(),
            root_uri=from_fs_path(str(self.root)),
            workspace_folders=[lsp.WorkspaceFolder(from_fs_path(str(self.root)), "root")],
        )), PATIENCE)
        self.server_capabilities = result.capabilities
        self.client.initialized(lsp.InitializedParams())
        return self

    async def __aexit__(self, *exc: object) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), PATIENCE)
            self.client.exit(None)
            await asyncio.wait_for(self.client.stop(), PATIENCE)
        finally:
            server = self.client._server
            if server is not None and server.returncode is None:
                server.kill()
                await server.wait()
            self.returncode = server.returncode if server is not None else None

    # ---------------------------------------------------------------- documents

    def uri(self, path: Path) -> str:
        return from_fs_path(str(path))

    def open(self, path: Path, text: str | None = None) -> str:
        uri = self.uri(path)
        self.texts[uri] = path.read_text(encoding="utf-8") if text is None else text
        self.versions[uri] = 1
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=self.texts[uri])
        ))
        return uri

    def change(self, path: Path, text: str) -> int:
        """Replace the buffer's text (one whole-document change); its new version."""
        uri = self.uri(path)
        self.versions[uri] += 1
        self.texts[uri] = text
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
        ))
        return self.versions[uri]

    def edit(self, path: Path, edits: Sequence[lsp.TextEdit]) -> int:
        """Apply ``edits`` as an editor does: one ranged (incremental) change each, last
        first; the buffer's new version."""
        uri = self.uri(path)
        ordered = sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character),
                         reverse=True)
        self.versions[uri] += 1
        for edit in ordered:
            self.texts[uri] = applied(self.texts[uri], [edit])
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[
                lsp.TextDocumentContentChangePartial(range=e.range, text=e.new_text)
                for e in ordered
            ],
        ))
        return self.versions[uri]

    def save(self, path: Path) -> None:
        self.client.text_document_did_save(lsp.DidSaveTextDocumentParams(
            lsp.TextDocumentIdentifier(self.uri(path))))

    def close(self, path: Path) -> None:
        uri = self.uri(path)
        self.client.text_document_did_close(lsp.DidCloseTextDocumentParams(
            lsp.TextDocumentIdentifier(uri)))
        del self.texts[uri]

    def files_changed(self, *paths: Path) -> None:
        self.client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams([
            lsp.FileEvent(self.uri(p), lsp.FileChangeType.Changed) for p in paths
        ]))

    # ---------------------------------------------------------------- what the server says

    async def until(self, found: Callable[[], Any]) -> Any:
        """Wait until ``found()`` returns something (checked again after each message)."""

        async def wait() -> Any:
            while True:
                self._news.clear()
                value = found()
                if value:
                    return value
                await self._news.wait()

        return await asyncio.wait_for(wait(), PATIENCE)

    async def diagnostics(self, path: Path, version: int | None = None,
                          after: int = 0) -> list[lsp.Diagnostic]:
        """The diagnostics of ``path`` published after the first ``after`` publications
        (and for ``version``, when given)."""
        uri = self.uri(path)

        def found() -> list[lsp.Diagnostic] | None:
            for params in self.published[after:]:
                if params.uri == uri and (version is None or params.version == version):
                    return list(params.diagnostics) or [None]  # type: ignore[list-item]
            return None

        result = await self.until(found)
        return [d for d in result if d is not None]

    async def code_actions(self, path: Path, diagnostic: lsp.Diagnostic | lsp.Range,
                           only: Sequence[str] | None = None) -> list[lsp.CodeAction]:
        """The actions for ``diagnostic``, or for a cursor at a range with no diagnostic
        given (as some editors ask)."""
        given = isinstance(diagnostic, lsp.Diagnostic)
        result = await asyncio.wait_for(self.client.text_document_code_action_async(
            lsp.CodeActionParams(
                text_document=lsp.TextDocumentIdentifier(self.uri(path)),
                range=diagnostic.range if given else diagnostic,  # type: ignore[union-attr]
                context=lsp.CodeActionContext(diagnostics=[diagnostic] if given else [],
                                              only=only),  # type: ignore[list-item]
            )), PATIENCE)
        return [a for a in result or () if isinstance(a, lsp.CodeAction)]


def session(root: Path, story: Callable[[Session], Awaitable[None]],
            capabilities: lsp.ClientCapabilities = CAPABILITIES) -> Session:
    """Run ``story`` in a session with a server started in ``root``; the server must exit
    with status 0 after shutdown and exit."""

    async def main() -> Session:
        async with Session(root, capabilities) as s:
            await story(s)
        return s

    done = asyncio.run(main())
    assert done.returncode == 0
    return done


def applied(text: str, edits: Sequence[lsp.TextEdit]) -> str:
    """``text`` with ``edits`` applied (UTF-16 positions, as the client agreed)."""
    starts = [0, *(m.end() for m in _LINE_BREAK.finditer(text))]

    def offset(position: lsp.Position) -> int:
        start = starts[position.line]
        line = _LINE_BREAK.split(text)[position.line]
        units = 0
        for index, char in enumerate(line):
            if units >= position.character:
                return start + index
            units += 2 if ord(char) > 0xFFFF else 1
        return start + len(line)

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character),
                       reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


def edits_of(action: lsp.CodeAction, uri: str) -> list[lsp.TextEdit]:
    assert action.edit is not None and action.edit.document_changes
    (change,) = action.edit.document_changes
    assert isinstance(change, lsp.TextDocumentEdit) and change.text_document.uri == uri
    return [e for e in change.edits if isinstance(e, lsp.TextEdit)]


def by_code(diagnostics: Sequence[lsp.Diagnostic]) -> dict[str, lsp.Diagnostic]:
    return {str(d.code): d for d in diagnostics}


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


# -------------------------------------------------------------------------------- stories


ALIASKIT = FIXTURES / "aliaskit"
MAIN = ALIASKIT / "main.py"
HELPER = ALIASKIT / "tools" / "reading.py"


def test_cross_module_finding_with_its_trace_follows_an_unsaved_helper() -> None:
    """aliaskit/main.py reads a capture tensor through tools/reading.py: the diagnostic
    in main.py carries the trace through both files; editing the helper's buffer (not
    saved) refreshes main.py's diagnostics."""
    main_text = MAIN.read_text(encoding="utf-8")
    helper_text = HELPER.read_text(encoding="utf-8")

    async def story(s: Session) -> None:
        assert s.server_capabilities.code_action_provider
        s.open(MAIN)
        s.open(HELPER)
        found = by_code(await s.diagnostics(MAIN))
        # Sent before any diagnostics: files changed on disk are watched.
        assert [r.method for r in s.registrations] == [lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES]
        assert set(found) == {"DL001", "DL003"}
        read = found["DL003"]
        line = main_text.splitlines()[15]
        assert read.range == lsp.Range(
            lsp.Position(15, line.index("reader.snapshot")),
            lsp.Position(15, line.index("reader.snapshot") + len("reader.snapshot(w)")),
        )
        assert read.severity == lsp.DiagnosticSeverity.Error
        assert read.source == "dispatch-lint"
        assert read.code_description is not None
        assert read.code_description.href == RULES_BY_ID["DL003"].url
        assert read.message.startswith("Capture tensors hold no data")
        assert "\nhelp: replay the program" in read.message
        steps = [(info.location.uri.rsplit("/fixtures/", 1)[1], info.location.range.start.line,
                  info.message) for info in read.related_information or ()]
        assert steps[0] == ("aliaskit/tools/reading.py", 8, "born from `dispatch.rand((2,), seed=0)`")
        assert ("aliaskit/main.py", 14, "assigned to `w`") in steps
        assert steps[-1] == ("aliaskit/tools/reading.py", 12, "read by `t.tolist()`")
        born = read.related_information[0].location.range.start  # type: ignore[index]
        assert helper_text.splitlines()[8][born.character:].startswith("dispatch.rand(")
        # The helper's own findings: none (its flow is reported where it passes through).
        assert await s.diagnostics(HELPER) == []

        # The helper no longer reads the tensor (unsaved): main.py's DL003 goes.
        mark = len(s.published)
        s.change(HELPER, helper_text.replace("return t.tolist()", "return t"))
        assert set(by_code(await s.diagnostics(MAIN, after=mark))) == {"DL001"}
        mark = len(s.published)
        s.change(HELPER, helper_text)
        assert set(by_code(await s.diagnostics(MAIN, after=mark))) == {"DL001", "DL003"}

    session(FIXTURES, story)


def test_paths_with_blanks_and_percent_signs_and_a_save(tmp_path: Path) -> None:
    """A workspace under ``my project %41``: URIs are percent-encoded both ways (the trace's
    step in the helper, which is not open, is a URI the client can open); saving the helper
    on disk (the editor's own file, not open in it) and saving main.py re-lint it."""
    root = tmp_path / "my project %41"
    shutil.copytree(ALIASKIT, root / "aliaskit")
    main, helper = root / "aliaskit" / "main.py", root / "aliaskit" / "tools" / "reading.py"
    helper_text = helper.read_text(encoding="utf-8")

    async def story(s: Session) -> None:
        uri = s.open(main)
        assert "/my%20project%20%2541/" in uri
        read = by_code(await s.diagnostics(main))["DL003"]
        born = read.related_information[0].location  # type: ignore[index]
        assert born.uri == from_fs_path(str(helper))
        assert to_fs_path(born.uri) == str(helper)

        mark = len(s.published)
        helper.write_text(helper_text.replace("return t.tolist()", "return t"), encoding="utf-8")
        s.files_changed(helper)
        assert set(by_code(await s.diagnostics(main, after=mark))) == {"DL001"}
        mark = len(s.published)
        helper.write_text(helper_text, encoding="utf-8")
        s.save(main)
        assert set(by_code(await s.diagnostics(main, after=mark))) == {"DL001", "DL003"}

    session(root, story)


def test_a_burst_of_changes_is_linted_once_for_the_last_version() -> None:
    main_text = MAIN.read_text(encoding="utf-8")

    async def story(s: Session) -> None:
        s.open(MAIN)
        await s.diagnostics(MAIN)
        mark = len(s.published)
        for count in range(1, 6):
            version = s.change(MAIN, main_text + "\n" * count)
        await s.diagnostics(MAIN, version=version, after=mark)
        await asyncio.sleep(0.5)  # Room for any late, stale publication to show up.
        assert [p.version for p in s.published[mark:] if p.uri == s.uri(MAIN)] == [version]

    session(FIXTURES, story)


def test_noqa_action_adds_the_comment_and_the_finding_goes() -> None:
    main_text = MAIN.read_text(encoding="utf-8")

    async def story(s: Session) -> None:
        uri = s.open(MAIN)
        read = by_code(await s.diagnostics(MAIN))["DL003"]
        actions = await s.code_actions(MAIN, read)
        (noqa,) = [a for a in actions if "noqa" in a.title]
        assert noqa.kind == lsp.CodeActionKind.QuickFix
        assert list(noqa.diagnostics or ()) == [read]
        # A cursor at the start of the line, no diagnostic named: the same action.
        cursor = lsp.Range(lsp.Position(15, 0), lsp.Position(15, 0))
        assert [a for a in await s.code_actions(MAIN, cursor) if "noqa" in a.title] == [noqa]
        mark = len(s.published)
        version = s.edit(MAIN, edits_of(noqa, uri))
        line = s.texts[uri].splitlines()[15]
        assert line == "    print(reader.snapshot(w))  # expect: DL003  # noqa: DL003"
        assert set(by_code(await s.diagnostics(MAIN, version, mark))) == {"DL001"}

        # An existing noqa comment of another tool gets the code added to its list. Asked
        # right after the change, as an editor asks, the actions are for the new text.
        s.change(MAIN, main_text.replace(
            "print(reader.snapshot(w))  # expect: DL003", "print(reader.snapshot(w))  # noqa: E501"))
        (noqa,) = [a for a in await s.code_actions(MAIN, read) if "noqa" in a.title]
        mark = len(s.published)
        version = s.edit(MAIN, edits_of(noqa, uri))
        assert s.texts[uri].splitlines()[15] == "    print(reader.snapshot(w))  # noqa: E501, DL003"
        assert set(by_code(await s.diagnostics(MAIN, version, mark))) == {"DL001"}

    session(FIXTURES, story)


def test_fixes_are_code_actions_safe_preferred_unsafe_marked() -> None:
    nested = FIXTURES / "nested_autodiff.py"
    capture = FIXTURES / "autodiff_capture_keyword.py"

    async def story(s: Session) -> None:
        uri = s.open(nested)
        (finding,) = await s.diagnostics(nested)
        assert finding.code == "DL005"
        actions = await s.code_actions(nested, finding)
        (fix,) = [a for a in actions if a.title.startswith("Fix DL005")]
        assert fix.is_preferred and fix.kind == lsp.CodeActionKind.QuickFix
        fixed = applied(s.texts[uri], edits_of(fix, uri))
        assert "second_order = trainable  # expect: DL005" in fixed
        # Fix all: every safe fix of the file in one edit, the same text.
        (fix_all,) = await s.code_actions(nested, finding, only=[lsp.CodeActionKind.SourceFixAll])
        assert fix_all.kind == "source.fixAll.dispatch-lint"
        assert applied(s.texts[uri], edits_of(fix_all, uri)) == fixed
        mark = len(s.published)
        version = s.edit(nested, edits_of(fix, uri))
        assert await s.diagnostics(nested, version, mark) == []

        uri = s.open(capture)
        (finding,) = await s.diagnostics(capture)
        assert finding.code == "DL004"
        assert finding.severity == lsp.DiagnosticSeverity.Warning
        (fix,) = [a for a in await s.code_actions(capture, finding) if a.title.startswith("Fix")]
        assert "unsafe" in fix.title and not fix.is_preferred
        assert 'device="capture"' in applied(s.texts[uri], edits_of(fix, uri))
        # No safe fix in that file: no fix-all action.
        assert await s.code_actions(capture, finding, only=[lsp.CodeActionKind.SourceFixAll]) == []

    session(FIXTURES, story)


def test_ranges_count_utf16_code_units(tmp_path: Path) -> None:
    """Characters outside the Basic Multilingual Plane are two UTF-16 code units: the
    analysis counts characters, the server converts."""
    prefix = 'label = "😋😋é"; '
    source = (
        "from dispatch_lint import runtime as dispatch\n\n"
        "x = dispatch.placeholder((2,), device=dispatch.Capture(), name='x')\n"
        f"{prefix}x.sum().backward()\n"
    )
    path = tmp_path / "emoji.py"
    path.write_text(source, encoding="utf-8")

    async def story(s: Session) -> None:
        s.open(path)
        (finding,) = await s.diagnostics(path)
        assert finding.code == "DL001"
        start = finding.range.start
        assert start.line == 3 and start.character == utf16(prefix)
        assert finding.range.end.character == utf16(prefix + "x.sum().backward()")

        # A buffer that does not parse: DL000 at the error, an error; it cannot be
        # suppressed, so no noqa action is offered.
        mark = len(s.published)
        version = s.change(path, source + f"{prefix}def broken(:\n")
        (broken,) = await s.diagnostics(path, version, mark)
        assert broken.code == "DL000" and broken.severity == lsp.DiagnosticSeverity.Error
        assert broken.range.start.line == 4
        assert [a for a in await s.code_actions(path, broken) if "noqa" in a.title] == []

    session(tmp_path, story)


def test_configuration_applies_reloads_and_a_broken_one_is_a_message(tmp_path: Path) -> None:
    shutil.copytree(ALIASKIT, tmp_path / "aliaskit")
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.dispatch-lint]\nignore = ["DL003"]\nexclude = ["scratch/"]\n',
                      encoding="utf-8")
    main = tmp_path / "aliaskit" / "main.py"
    helper = tmp_path / "aliaskit" / "tools" / "reading.py"
    scratch = tmp_path / "scratch" / "try.py"
    scratch.parent.mkdir()
    scratch.write_text(main.read_text())

    async def story(s: Session) -> None:
        s.open(main)
        s.open(scratch)
        assert set(by_code(await s.diagnostics(main))) == {"DL001"}
        assert await s.diagnostics(scratch) == []  # excluded by the configuration

        config.write_text("[tool.dispatch-lint\nselect = [", encoding="utf-8")
        mark = len(s.published)
        s.files_changed(config)
        message = await s.until(lambda: s.messages)
        assert message[0].type == lsp.MessageType.Error
        assert str(config) in message[0].message and "broken TOML" in message[0].message
        assert await s.diagnostics(main, after=mark) == []  # cleared, not stale

        config.write_text('[tool.dispatch-lint]\nselect = ["DL"]\n', encoding="utf-8")
        mark = len(s.published)
        s.files_changed(config)
        assert set(by_code(await s.diagnostics(main, after=mark))) == {"DL001", "DL003"}

        # A helper that is not open changes on disk: the open file that imports it too.
        helper.write_text(helper.read_text().replace("return t.tolist()", "return t"))
        mark = len(s.published)
        s.files_changed(helper)
        assert set(by_code(await s.diagnostics(main, after=mark))) == {"DL001"}

        # Closing a file clears its diagnostics.
        mark = len(s.published)
        s.close(main)
        assert await s.diagnostics(main, after=mark) == []

    done = session(tmp_path, story)
    assert len(done.messages) == 1  # a broken configuration is told once, not per run


def test_without_related_information_support_the_message_says_where(tmp_path: Path) -> None:
    plain = lsp.ClientCapabilities()

    async def story(s: Session) -> None:
        s.open(MAIN)
        read = by_code(await s.diagnostics(MAIN))["DL003"]
        assert "was born at line 9 of aliaskit/tools/reading.py" in read.message

    session(FIXTURES, story, plain)


def test_server_help_and_usage_errors() -> None:
    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "dispatch_lint", "server", *argv],
                              capture_output=True, text=True, timeout=120, check=False)

    shown = run("--help")
    assert shown.returncode == 0 and "language server" in shown.stdout
    refused = run("--port", "1")
    assert refused.returncode == 2 and "unrecognized arguments: --port" in refused.stderr


def test_requests_out_of_turn_get_the_errors_the_specification_names(tmp_path: Path) -> None:
    """Spoken as raw JSON-RPC, all at once: a request before ``initialize`` is answered
    ServerNotInitialized (-32002), one after ``shutdown`` InvalidRequest (-32600); an unknown
    method MethodNotFound (-32601); ``exit`` after ``shutdown`` ends with status 0."""
    where = {"textDocument": {"uri": from_fs_path(str(tmp_path / "a b%.py"))},
             "range": {"start": {"line": 0, "character": 0},
                       "end": {"line": 0, "character": 0}},
             "context": {"diagnostics": []}}
    messages = [
        {"id": 0, "method": "textDocument/codeAction", "params": where},
        {"id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": None, "capabilities": {}}},
        {"method": "initialized", "params": {}},
        {"id": 2, "method": "dispatch-lint/unknown", "params": {}},
        {"id": 3, "method": "textDocument/codeAction", "params": where},
        {"id": 4, "method": "shutdown"},
        {"id": 5, "method": "textDocument/codeAction", "params": where},
        {"method": "exit"},
    ]
    framed = b""
    for message in messages:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        framed += b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    done = subprocess.run([sys.executable, "-m", "dispatch_lint", "server"], input=framed,
                          capture_output=True, timeout=120, check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    answers = {}
    for body in re.split(rb"Content-Length: \d+\r\n(?:[^\r\n]+\r\n)*\r\n", done.stdout)[1:]:
        answer = json.loads(body)
        if "id" in answer:
            answers[answer["id"]] = answer.get("error", {}).get("code", "result")
    assert answers == {0: -32002, 1: "result", 2: -32601, 3: "result", 4: "result", 5: -32600}


# ------------------------------------------------------------------------ noqa comments


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("t.backward()", "t.backward()  # noqa: DL001"),
        ("t.backward()   ", "t.backward()  # noqa: DL001   "),
        ("t.backward()  # why", "t.backward()  # why  # noqa: DL001"),
        ("t.backward()  # noqa: E501", "t.backward()  # noqa: E501, DL001"),
        ("t.backward()  # noqa:DL003 trailing", "t.backward()  # noqa:DL003, DL001 trailing"),
        ("t.backward()  # noqa", None),
        ("f(t.backward(), '''", None),
        ("t.backward() + \\", None),
    ],
)
def test_noqa_edit(line: str, expected: str | None) -> None:
    text = f"import x\n{line}\n'''\n'''\n1\n"
    edit = noqa_edit(text, 2, "DL001")
    if expected is None:
        assert edit is None
        return
    assert edit is not None and edit.line == edit.end_line == 2
    assert line[: edit.column - 1] + edit.content + line[edit.end_column - 1 :] == expected
