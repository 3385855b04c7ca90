"""The emitters format exactly what they are given: text, JSON, SARIF 2.1.0 and GitHub."""

from __future__ import annotations

import dataclasses
import enum
import io
import json
import re
from pathlib import Path

import jsonschema
import pytest

from dispatch_lint.analyzer.diagnostics import (
    SAFE,
    UNSAFE,
    Diagnostic,
    Edit,
    FileError,
    Fix,
    Report,
    TraceStep,
)
from dispatch_lint.analyzer.report.github import escape_property, to_github
from dispatch_lint.analyzer.report.json import to_json
from dispatch_lint.analyzer.report.sarif import to_sarif
from dispatch_lint.analyzer.report.text import (
    fix_hint,
    source_lines,
    statistics,
    summary_line,
    write_concise,
    write_statistics,
    write_text,
)
from dispatch_lint.analyzer.suppressions import UnusedSuppression
from dispatch_lint.catalog import RULES

# The official OASIS SARIF 2.1.0 schema (errata01), vendored so the tests need no network.
SARIF_SCHEMA = json.loads(
    (Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(
        encoding="utf-8"
    )
)

SOURCE = b"import dispatch_lint.runtime as dispatch\nx = dispatch.placeholder((2,))\nx.backward()\n"


def _capture_backward(path: str = "train.py") -> Diagnostic:
    return Diagnostic(
        path=path,
        line=3,
        column=1,
        rule="DL001",
        name="capture-backward",
        severity="error",
        message="Capture tensors do not support autodiff: x may be a capture tensor",
        end_line=3,
        end_column=13,
        trace=(
            TraceStep(
                path, 2, 5, "a capture tensor is created by dispatch.placeholder"
            ),
            TraceStep(path, 3, 1, "it reaches .backward()"),
        ),
    )


def _warning(path: str = "model.py") -> Diagnostic:
    return Diagnostic(
        path,
        7,
        9,
        "DL004",
        "autodiff-over-capture",
        "warning",
        "Autodiff over a capture device",
        7,
        30,
    )


REPORT = Report(diagnostics=(_capture_backward(), _warning()), files=12)


def test_text_shows_location_source_caret_trace_and_summary() -> None:
    out = io.StringIO()
    write_text(Report((_capture_backward(),), files=12), out, {"train.py": SOURCE})
    assert out.getvalue().splitlines() == [
        "DL001 Capture tensors do not support autodiff: x may be a capture tensor",
        " --> train.py:3:1",
        "  |",
        "3 | x.backward()",
        "  | ^^^^^^^^^^^^",
        "  |",
        "  1. train.py:2:5: a capture tensor is created by dispatch.placeholder",
        "  2. train.py:3:1: it reaches .backward()",
        "help: replay the captured program first (dispatch.replay / Program.run) and "
        "differentiate the real result, or train on Autodiff(NumPy())",
        "",
        "Found 1 error in 1 file (12 files checked).",
    ]


def test_text_shows_the_short_message_and_the_help_apart() -> None:
    diagnostic = dataclasses.replace(
        _capture_backward(),
        message="Capture tensors do not support autodiff: x may be a capture tensor; "
        "`x` was born at line 2. Fix: do this (DL001 capture-backward).",
        headline="Capture tensors do not support autodiff: x may be a capture tensor",
        help="do this",
    )
    out = io.StringIO()
    write_text(Report((diagnostic,), files=1), out, {"train.py": SOURCE})
    lines = out.getvalue().splitlines()
    assert lines[0] == "DL001 Capture tensors do not support autodiff: x may be a capture tensor"
    assert lines[-3:] == ["help: do this", "", "Found 1 error in 1 file (1 file checked)."]
    concise = io.StringIO()
    write_concise(Report((diagnostic,), files=1), concise)
    assert concise.getvalue().splitlines()[0] == f"train.py:3:1: DL001 {diagnostic.message}"


def test_a_fixable_finding_is_marked_and_its_fix_is_the_help() -> None:
    fix = Fix("drop autodiff first: `w.inner()`", SAFE, (Edit(3, 2, 3, 2, ".inner()"),))
    hidden = Fix("use `c`", UNSAFE, (Edit(3, 1, 3, 3, "c"),))
    fixable = dataclasses.replace(_capture_backward(), fix=fix)
    unsafe = dataclasses.replace(_capture_backward("b.py"), fix=hidden)
    report = Report((fixable, unsafe), files=2)
    out = io.StringIO()
    write_text(report, out, {})
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("DL001 [*] Capture tensors")
    assert "help: drop autodiff first: `w.inner()`" in lines
    assert lines[-2:] == [
        "Found 2 errors in 2 files (2 files checked).",
        "[*] 1 fixable with the `--fix` option (1 hidden fix can be enabled with the "
        "`--unsafe-fixes` option).",
    ]
    concise = io.StringIO()
    write_concise(report, concise, unsafe=True)
    assert [line.split(" ", 2)[1:] for line in concise.getvalue().splitlines()[:2]] == [
        ["DL001", "[*] Capture tensors do not support autodiff: x may be a capture tensor"]
    ] * 2
    assert concise.getvalue().splitlines()[-1] == "[*] 2 fixable with the `--fix` option."


@pytest.mark.parametrize(
    ("fixes", "unsafe", "fixing", "expected"),
    [
        ((), False, False, None),
        ((SAFE, SAFE), False, False, "[*] 2 fixable with the `--fix` option."),
        (
            (UNSAFE, UNSAFE),
            False,
            False,
            "No fixes available (2 hidden fixes can be enabled with the `--unsafe-fixes` "
            "option).",
        ),
        ((UNSAFE,), True, False, "[*] 1 fixable with the `--fix` option."),
        (
            (SAFE, UNSAFE),
            False,
            True,
            "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` "
            "option).",
        ),
    ],
)
def test_fix_hint_says_what_fix_and_unsafe_fixes_would_do(
    fixes: tuple[str, ...], unsafe: bool, fixing: bool, expected: str | None
) -> None:
    found = [
        dataclasses.replace(_capture_backward(), fix=Fix("t", applicability, ()))
        for applicability in fixes
    ]
    assert fix_hint(found, unsafe, fixing) == expected


def test_a_warning_has_a_warning_coloured_caret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    source = b"import dispatch_lint.runtime as d\n\n\n\n\n\ndev = d.Autodiff(d.Capture())\n"
    out = io.StringIO()
    write_text(Report((_warning(),), files=1), out, {"model.py": source})
    caret_line = next(line for line in out.getvalue().splitlines() if "^" in line)
    assert re.search(r"\x1b\[1;33m *\^+", caret_line), repr(caret_line)  # bold yellow
    assert "\x1b[1;31m" not in out.getvalue()  # no bold red anywhere


def test_text_in_a_pipe_has_no_colour_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    out = io.StringIO()
    write_text(REPORT, out, {"train.py": SOURCE})
    assert "\x1b[" not in out.getvalue()


def test_text_colours_when_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    out = io.StringIO()
    write_text(REPORT, out, {"train.py": SOURCE})
    assert "\x1b[" in out.getvalue()


def test_text_without_colour_is_the_coloured_text_without_its_colour_codes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Without colour the lines are written directly (fast); with colour rich renders them.
    # Both must show the same characters, whatever the message or source line holds.
    import re

    tricky = Diagnostic(
        "a[b].py",
        1,
        3,
        "DL003",
        "capture-data-read",
        "error",
        "Capture tensors hold no data: [bold]t[/bold] \u00e9\u4e2d :smile: \\x",
        1,
        6,
        (TraceStep("a[b].py", 1, 3, "read by `f'{t:.3f}'` [red]"),),
    )
    report = Report((tricky, *REPORT.diagnostics), files=3)
    sources = {"a[b].py": b"  \tt.item()  # \xc3\xa9 [x]\n", "train.py": SOURCE}
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    plain = io.StringIO()
    write_text(report, plain, sources)
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    coloured = io.StringIO()
    write_text(report, coloured, sources)
    assert "\x1b[" in coloured.getvalue()
    # Colours are SGR sequences; the rule id's link to its documentation is an OSC 8 one.
    uncoloured = re.sub(r"\x1b\[[0-9;]*m|\x1b\]8;[^\x1b]*\x1b\\", "", coloured.getvalue())
    assert uncoloured == plain.getvalue()


def test_text_does_not_treat_brackets_in_messages_as_markup() -> None:
    diagnostic = Diagnostic(
        "a[b].py",
        1,
        1,
        "DL003",
        "capture-data-read",
        "error",
        "Capture tensors hold no data: [bold]t[/bold].item()",
        1,
        2,
    )
    out = io.StringIO()
    write_text(Report((diagnostic,), files=1), out, {})
    assert out.getvalue().startswith(
        "DL003 Capture tensors hold no data: [bold]t[/bold].item()\n --> a[b].py:1:1\n"
    )


@pytest.mark.parametrize(
    ("report", "unused", "expected"),
    [
        (Report((), files=12), 0, "All checks passed (12 files checked)."),
        (Report((), files=1), 0, "All checks passed (1 file checked)."),
        (REPORT, 0, "Found 1 error and 1 warning in 2 files (12 files checked)."),
        (
            Report((_capture_backward(), _capture_backward("b.py")), 3),
            0,
            "Found 2 errors in 2 files (3 files checked).",
        ),
        (Report((), files=2), 1, "Found 1 unused suppression (2 files checked)."),
        (
            Report((), files=0, errors=(FileError("x.py", "no such file or folder"),)),
            0,
            "No findings, but 1 path could not be checked (0 files checked).",
        ),
    ],
)
def test_summary_line(report: Report, unused: int, expected: str) -> None:
    assert summary_line(report, unused) == expected


def test_statistics_counts_each_rule_most_frequent_first() -> None:
    report = Report(
        (_capture_backward("a.py"), _capture_backward("b.py"), _warning()), files=4
    )
    out = io.StringIO()
    write_statistics(report, out)
    assert out.getvalue().splitlines() == [
        "    2  DL001  capture-backward",
        "    1  DL004  autodiff-over-capture",
        "Found 2 errors and 1 warning in 3 files (4 files checked).",
    ]


def test_statistics_as_objects_for_json() -> None:
    report = Report(
        (_capture_backward("a.py"), _capture_backward("b.py"), _warning()), files=4
    )
    assert statistics(report) == [
        {"code": "DL001", "name": "capture-backward", "count": 2},
        {"code": "DL004", "name": "autodiff-over-capture", "count": 1},
    ]


def test_summary_after_fixing_counts_what_was_fixed_and_what_remains() -> None:
    remaining = Report((_capture_backward("a.py"),), files=5)
    fixed = (_capture_backward("b.py"), _warning())
    assert summary_line(remaining, fixed=fixed) == (
        "Found 2 errors and 1 warning (2 fixed, 1 remaining) in 3 files (5 files checked)."
    )
    assert summary_line(Report((), files=5), fixed=fixed[:1]) == (
        "Found 1 error (1 fixed, 0 remaining) in 1 file (5 files checked)."
    )


def test_unused_suppressions_are_listed_as_warnings() -> None:
    unused = UnusedSuppression("a.py", 4, 8, "DL002", "# noqa: DL002")
    out = io.StringIO()
    write_text(Report((), files=1), out, {}, [unused])
    assert out.getvalue().splitlines()[0] == (
        "a.py:4:8: warning: unused suppression '# noqa: DL002': no DL002 finding on its line"
    )


def test_source_lines_follow_cpython_decoding() -> None:
    latin1 = "# -*- coding: latin-1 -*-\nname = 'café'\r\nx = 1\r".encode("latin-1")
    assert source_lines(latin1) == [
        "# -*- coding: latin-1 -*-",
        "name = 'café'",
        "x = 1",
        "",
    ]
    assert source_lines(b"\xef\xbb\xbfx = 1\n")[0] == "x = 1"
    assert source_lines(b"x = '\xff'\n")[0] == "x = '\ufffd'"


def test_json_matches_the_documented_schema_exactly() -> None:
    document = json.loads(to_json(Report((_capture_backward(),), files=12)))
    assert document == {
        "version": 1,
        "files": 12,
        "diagnostics": [
            {
                "rule": "DL001",
                "name": "capture-backward",
                "severity": "error",
                "path": "train.py",
                "line": 3,
                "column": 1,
                "end_line": 3,
                "end_column": 13,
                "message": "Capture tensors do not support autodiff: x may be a capture tensor",
                "trace": [
                    {
                        "path": "train.py",
                        "line": 2,
                        "column": 5,
                        "message": "a capture tensor is created by dispatch.placeholder",
                    },
                    {
                        "path": "train.py",
                        "line": 3,
                        "column": 1,
                        "message": "it reaches .backward()",
                    },
                ],
            }
        ],
    }


def _sarif(report: Report, suppressed: tuple[Diagnostic, ...] = ()) -> dict:
    log = json.loads(to_sarif(report, "0.1.0", suppressed, root=Path("/work/project")))
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    return log


def test_sarif_is_valid_and_describes_every_rule() -> None:
    log = _sarif(REPORT)
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "dispatch-lint"
    assert driver["version"] == "0.1.0"
    assert [r["id"] for r in driver["rules"]] == [spec.id for spec in RULES]
    dl001 = driver["rules"][1]
    assert dl001["name"] == "capture-backward"
    assert dl001["helpUri"].endswith("#dl001-capture-backward")
    assert dl001["shortDescription"]["text"] and dl001["fullDescription"]["text"]
    assert dl001["help"]["text"]
    assert dl001["defaultConfiguration"] == {"level": "error"}
    assert driver["rules"][4]["defaultConfiguration"] == {"level": "warning"}


def test_sarif_result_has_relative_location_and_the_trace_as_code_flow() -> None:
    run = _sarif(REPORT)["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == "file:///work/project/"
    result = run["results"][1]
    assert result["ruleId"] == "DL001"
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == "DL001"
    assert result["level"] == "error"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "train.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {
        "startLine": 3,
        "startColumn": 1,
        "endLine": 3,
        "endColumn": 13,
    }
    steps = result["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [
        (
            s["location"]["physicalLocation"]["region"]["startLine"],
            s["location"]["message"]["text"],
        )
        for s in steps
    ] == [
        (2, "a capture tensor is created by dispatch.placeholder"),
        (3, "it reaches .backward()"),
    ]
    assert run["results"][0]["level"] == "warning"


def test_sarif_marks_suppressed_findings_only_when_given() -> None:
    assert all("suppressions" not in r for r in _sarif(REPORT)["runs"][0]["results"])
    hidden = _capture_backward("hidden.py")
    results = _sarif(REPORT, suppressed=(hidden,))["runs"][0]["results"]
    marked = [r for r in results if "suppressions" in r]
    assert [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in marked
    ] == ["hidden.py"]
    assert marked[0]["suppressions"] == [{"kind": "inSource"}]


def test_sarif_reports_files_that_could_not_be_checked() -> None:
    report = Report(
        (), files=1, errors=(FileError("gone.py", "no such file or folder"),)
    )
    invocation = _sarif(report)["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert (
        invocation["toolExecutionNotifications"][0]["message"]["text"]
        == "no such file or folder"
    )


def test_sarif_paths_outside_the_root_become_file_uris() -> None:
    outside = Diagnostic(
        "../other/x y.py", 1, 1, "DL000", "syntax-error", "error", "Syntax error", 1, 1
    )
    uri = _sarif(Report((outside,), 1))["runs"][0]["results"][0]["locations"][0][
        "physicalLocation"
    ]["artifactLocation"]
    assert uri["uri"].startswith("file:///") and uri["uri"].endswith("/other/x%20y.py")
    assert "uriBaseId" not in uri


def test_github_annotations_one_per_finding() -> None:
    lines = to_github(REPORT.diagnostics).splitlines()
    assert lines[0] == (
        "::error file=train.py,line=3,col=1,endLine=3,endColumn=13,title=DL001 capture-backward"
        "::Capture tensors do not support autodiff: x may be a capture tensor"
        "%0A  1. train.py:2:5: a capture tensor is created by dispatch.placeholder"
        "%0A  2. train.py:3:1: it reaches .backward()"
        "%0ASee https://github.com/dispatch-lint/dispatch-lint#dl001-capture-backward"
    )
    assert lines[1].startswith("::warning file=model.py,line=7,col=9,")
    assert len(lines) == 2


def test_github_escapes_properties_and_data() -> None:
    assert escape_property("a,b:c%d\ne") == "a%2Cb%3Ac%25d%0Ae"
    odd = Diagnostic(
        "dir,1/a:b.py", 1, 1, "DL000", "syntax-error", "error", "50% bad\r\nline", 1, 1
    )
    assert to_github([odd]) == (
        "::error file=dir%2C1/a%3Ab.py,line=1,col=1,endLine=1,endColumn=1,"
        "title=DL000 syntax-error::50%25 bad%0D%0Aline"
        "%0ASee https://github.com/dispatch-lint/dispatch-lint#dl000-syntax-error\n"
    )


@pytest.mark.parametrize(
    "document",
    [
        {},
        [],
        {"diagnostics": [], "files": 0},
        {"trace": [{"message": 'é \u2028 "q" \\ \n\t\x01 `x`'}], "nested": [[], [{}]]},
        [1, -2, 2.5, 1e100, True, False, None, "s", (3, 4)],
        {1: "int key", False: "bool key", None: "null key", 2.5: "float key"},
        [type("Name", (str,), {})("é"), enum.IntEnum("Level", "LOW HIGH").HIGH],
    ],
)
def test_json_is_written_exactly_as_the_standard_library_indents_it(
    document: object,
) -> None:
    from dispatch_lint.analyzer.report.json import dumps_indented

    assert dumps_indented(document) == json.dumps(
        document, indent=2, ensure_ascii=False
    )


_UNTRACED = Diagnostic(
    'dir/é "q".py',
    10,
    2,
    "DL000",
    "syntax-error",
    "error",
    "bad \\ line\n\t\x01 \u2028 中",
    10,
    3,
)


@pytest.mark.parametrize(
    "report",
    [
        Report((), files=0),
        Report((_UNTRACED,), files=1),
        Report((_capture_backward(), _UNTRACED, _capture_backward("b.py")), files=3),
    ],
)
def test_json_report_text_is_the_standard_librarys(report: Report) -> None:
    from dispatch_lint.analyzer.report.json import diagnostic_to_json

    document = {
        "version": 1,
        "files": report.files,
        "diagnostics": [diagnostic_to_json(d) for d in report.diagnostics],
    }
    assert to_json(report) == json.dumps(document, indent=2, ensure_ascii=False)
