"""Score the analyzer on a corpus of realistic programs, each confirmed under the runtime.

A corpus is a folder of programs written from DESIGN.md alone, before the analyzer is run on
them (``benchmarks/corpora/<name>/``). A program is one file with a ``main()`` that really runs,
or a package folder (``__init__.py``, modules, ``main.py``). Its truth is written as in
``fixtures/``: ``# expect: DL001`` on the line a rule must flag (a finding through a callee on the
call line in the caller); a program without marks is clean. A program holds at most one marked
line, so that running it confirms it: the runtime, in strict guard mode, must raise the marked
rule with that line on the traceback, and a clean program's ``main()`` must return.

    python benchmarks/corpus_score.py benchmarks/corpora/s9      # score: recall, precision, misses
    python benchmarks/corpus_score.py --check benchmarks/corpora/s9   # confirm the truths first

The score counts ``(path, line, rule)`` triples: a finding on a marked line with a marked rule is
a true positive, any other finding a false positive, a mark with no finding a false negative.
Exit status 0 when every truth is confirmed (``--check``) and the scoring ran; the figures are
printed, never judged here (the bar is the issue's).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# The analyzer of the checkout this script is in, not whichever one is installed: scoring
# another revision's checkout (`python ../rev/benchmarks/corpus_score.py`) scores its code.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dispatch_lint.analyzer.engine import SourceFile, analyze  # noqa: E402

_EXPECT = re.compile(r"#\s*expect:\s*(DL\d{3}(?:\s*,\s*DL\d{3})*)")

#: Runs one program's ``main()`` under strict guards in a fresh interpreter and prints the
#: outcome: ``ok``, or ``raised DLxxx`` and the program's traceback lines, or ``failed`` and
#: the exception (a program that breaks for another reason is a corpus bug).
_RUNNER = r"""
import importlib, sys, traceback
from dispatch_lint.runtime import errors, guards
guards.set_mode("strict")
root, module, files = sys.argv[1], sys.argv[2], set(sys.argv[3:])
sys.path.insert(0, root)
try:
    importlib.import_module(module).main()
except errors.DispatchError as error:
    lines = [f"{frame.filename}:{frame.lineno}" for frame in traceback.extract_tb(error.__traceback__)
             if frame.filename in files]
    print("raised", error.rule, *lines)
except BaseException as error:
    print("failed", type(error).__name__, str(error).splitlines()[:1])
else:
    print("ok")
"""


@dataclass(frozen=True)
class Program:
    name: str
    root: Path
    files: tuple[Path, ...]
    entry: Path

    def module(self, path: Path) -> str:
        parts = list(path.relative_to(self.root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        return ".".join(parts)

    def marks(self) -> set[tuple[str, int, str]]:
        return {
            (str(path), line, rule)
            for path in self.files
            for line, rules in read_marks(path).items()
            for rule in rules
        }


def read_marks(path: Path) -> dict[int, tuple[str, ...]]:
    """Line -> the rule ids of its ``# expect:`` comment (comments only, never strings)."""
    marks: dict[int, tuple[str, ...]] = {}
    with path.open("rb") as handle:
        for token in tokenize.tokenize(handle.readline):
            if token.type == tokenize.COMMENT and (match := _EXPECT.search(token.string)):
                marks[token.start[0]] = tuple(r.strip() for r in match.group(1).split(","))
    return marks


def programs(corpus: Path) -> Iterator[Program]:
    for entry in sorted(corpus.iterdir()):
        if entry.is_file() and entry.suffix == ".py":
            yield Program(entry.stem, corpus, (entry,), entry)
        elif entry.is_dir() and (entry / "__init__.py").exists():
            files = tuple(sorted(entry.rglob("*.py")))
            yield Program(entry.name, corpus, files, entry / "main.py")


def confirm(program: Program) -> str | None:
    """None when the runtime agrees with the program's marks, else what is wrong."""
    marks = program.marks()
    lines = {(path, line) for path, line, _ in marks}
    if len(lines) > 1:
        return f"{len(lines)} marked lines: a corpus program holds at most one"
    run = subprocess.run(
        [sys.executable, "-c", _RUNNER, str(program.root), program.module(program.entry),
         *(str(path.resolve()) for path in program.files)],
        check=False, capture_output=True, text=True, timeout=300,
    )
    outcome = (run.stdout.strip().splitlines() or [f"no output: {run.stderr.strip()[-300:]}"])[-1]
    if not marks:
        return None if outcome == "ok" else f"clean, but the run gave: {outcome}"
    (path, line), = lines
    rules = {rule for _, _, rule in marks}
    words = outcome.split()
    if words[:1] != ["raised"] or words[1] not in rules:
        return f"marked {sorted(rules)} at line {line}, but the run gave: {outcome}"
    if f"{Path(path).resolve()}:{line}" not in words[2:]:
        return f"raised {words[1]}, but line {line} is not on the traceback: {outcome}"
    return None


def score(corpus: Path, verbose: bool) -> tuple[int, int, int]:
    tp = fp = fn = 0
    for program in programs(corpus):
        files = [
            SourceFile(str(path), path.read_bytes(), program.module(path)) for path in program.files
        ]
        result = analyze(files)
        found = {(d.path, d.line, d.rule) for d in result.diagnostics}
        marks = program.marks()
        tp += len(found & marks)
        for kind, misses in (("FN", marks - found), ("FP", found - marks)):
            for path, line, rule in sorted(misses):
                print(f"{kind} {rule} {Path(path).relative_to(corpus)}:{line}")
        fp += len(found - marks)
        fn += len(marks - found)
        if verbose and result.errors:
            print(f"   {program.name}: {result.errors}")
    return tp, fp, fn


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="confirm every truth under the runtime")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    status = 0
    for corpus in args.corpora:
        if args.check:
            for program in programs(corpus):
                if (problem := confirm(program)) is not None:
                    print(f"UNCONFIRMED {program.name}: {problem}")
                    status = 1
        tp, fp, fn = score(corpus, args.verbose)
        recall = tp / (tp + fn) if tp + fn else 1.0
        precision = tp / (tp + fp) if tp + fp else 1.0
        count = sum(1 for _ in programs(corpus))
        print(f"{corpus}: {count} programs, TP {tp} FP {fp} FN {fn}: "
              f"recall {recall:.3f}, precision {precision:.3f}")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
