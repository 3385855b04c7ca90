"""Language server latency (issue 17): from ``didChange`` to ``publishDiagnostics``.

For each ``fixtures/*kit/`` package, a real LSP session (pygls's client, ``python -m
dispatch_lint server`` over stdio) opens every module of the package, then edits one module
that ``main.py`` imports (a comment line added and removed in turn, unsaved: a change the
analysis must see, as the group's contents change) and times how long until the server has
published the diagnostics of ``main.py`` and of the edited module for that version. Baselines
measured in the same run, interleaved, medians of ``--repeat`` rounds:

- the analysis alone: :func:`check_paths` in this process on the same files with the same
  overlays (what the server adds on top is its debounce, ``DEBOUNCE_SECONDS``, and the
  protocol);
- a CLI run per change: ``python -m dispatch_lint --no-cache main.py`` in a fresh process,
  what an editor integration that shells out on every change pays.

It prints milliseconds and ratios; nothing is asserted::

    python benchmarks/lsp_bench.py [--repeat 15] [--kits aliaskit,trainkit]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import BaseLanguageClient
from pygls.uris import from_fs_path

from dispatch_lint.analyzer.api import check_paths, config_for_file
from dispatch_lint.analyzer.server import DEBOUNCE_SECONDS

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"


def edited_module(kit: Path) -> Path:
    """The module of ``kit`` that main.py imports and most files depend on: the biggest
    one besides main.py and the package markers."""
    modules = [p for p in kit.rglob("*.py") if p.name not in ("main.py", "__init__.py")]
    return max(modules, key=lambda p: (p.stat().st_size, str(p)))


async def session(kit: Path, repeat: int) -> tuple[float, list[float], list[float]]:
    """First diagnostics after open (seconds), then per change: the latency and the
    in-process analysis time of the same run."""
    client = BaseLanguageClient("lsp-bench", "1")
    published: list[tuple[float, lsp.PublishDiagnosticsParams]] = []
    news = asyncio.Event()

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def _on(params: lsp.PublishDiagnosticsParams) -> None:
        published.append((time.perf_counter(), params))
        news.set()

    async def until(check) -> float:  # type: ignore[no-untyped-def]
        while True:
            news.clear()
            found = check()
            if found is not None:
                return found
            await asyncio.wait_for(news.wait(), 60)

    await client.start_io(sys.executable, "-m", "dispatch_lint", "server", cwd=str(FIXTURES))
    await client.initialize_async(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), root_uri=from_fs_path(str(FIXTURES))))
    client.initialized(lsp.InitializedParams())
    files = sorted(kit.rglob("*.py"))
    main, helper = kit / "main.py", edited_module(kit)
    texts = {p: p.read_text(encoding="utf-8") for p in files}
    main_uri, helper_uri = from_fs_path(str(main)), from_fs_path(str(helper))
    opened = time.perf_counter()
    for path in files:
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(
            from_fs_path(str(path)), "python", 1, texts[path])))

    def all_published(since: int, version: int) -> float | None:
        last: dict[str, tuple[float, int | None]] = {}
        for at, params in published[since:]:
            last[params.uri] = (at, params.version)
        if main_uri in last and last.get(helper_uri, (0, None))[1] == version:
            return max(last[main_uri][0], last[helper_uri][0])
        return None

    first = await until(lambda: all_published(0, 1)) - opened
    config = config_for_file(main)
    latencies, analyses = [], []
    for version in range(2, repeat + 2):
        await asyncio.sleep(0.3)  # Idle between edits, as between a user's bursts.
        text = texts[helper] + ("# edited\n" if version % 2 else "")
        since = len(published)
        sent = time.perf_counter()
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=helper_uri, version=version),
            [lsp.TextDocumentContentChangeWholeDocument(text)]))
        done = await until(lambda since=since, version=version: all_published(since, version))
        latencies.append(done - sent)
        overlays = {str(p): texts[p].encode() for p in files}
        overlays[str(helper)] = text.encode()
        start = time.perf_counter()
        check_paths([str(p) for p in files], config, force_exclude=True, overlays=overlays)
        analyses.append(time.perf_counter() - start)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return first, latencies, analyses


def cli_run(main: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "dispatch_lint", "--no-cache", str(main)],
                   cwd=FIXTURES, capture_output=True, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--kits", help="comma-separated package names (default: every *kit)")
    args = parser.parse_args()
    kits = ([FIXTURES / name for name in args.kits.split(",")] if args.kits
            else sorted(p.parent for p in FIXTURES.glob("*kit/main.py")))
    print(f"debounce {DEBOUNCE_SECONDS * 1000:.0f} ms; medians of {args.repeat} changes; "
          f"{os.cpu_count()} cores (shared: figures are noisy)\n")
    print(f"{'package':<10} {'edited module':<22} {'open':>7} {'change':>7} {'p90':>7} "
          f"{'analysis':>9} {'cli':>7} {'change/cli':>11}")
    worst = 0.0
    for kit in kits:
        first, latencies, analyses = asyncio.run(session(kit, args.repeat))
        clis = [cli_run(kit / "main.py") for _ in range(max(3, args.repeat // 3))]
        change = statistics.median(latencies)
        p90 = sorted(latencies)[int(0.9 * (len(latencies) - 1))]
        worst = max(worst, max(latencies))
        cli = statistics.median(clis)
        print(f"{kit.name:<10} {edited_module(kit).relative_to(kit)!s:<22} "
              f"{first * 1000:>5.0f}ms {change * 1000:>5.0f}ms {p90 * 1000:>5.0f}ms "
              f"{statistics.median(analyses) * 1000:>7.0f}ms {cli * 1000:>5.0f}ms "
              f"{change / cli:>10.2f}x")
    print(f"\nslowest change of all: {worst * 1000:.0f} ms (goal: under 1000 ms)")


if __name__ == "__main__":
    main()
