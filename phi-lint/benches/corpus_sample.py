#!/usr/bin/env python3
"""Measure phi-lint's judgement on a real corpus: counts, a labelled sample, misses.

Python 3 standard library only. The corpus is reference data that is never part of the project:
when its directory is absent every command says so and exits 0.

    corpus_sample.py stats   CORPUS --lint BIN
    corpus_sample.py sample  CORPUS --lint BIN [--n 100] [--seed S] [--labels TSV] [--context 4]
                             [--unlabelled]
    corpus_sample.py score   CORPUS --lint BIN --labels TSV [--n 100] [--seed S] [--misses TSV]
    corpus_sample.py passing CORPUS --lint BIN [--n 60] [--seed S] [--all]
    corpus_sample.py diff    CORPUS --lint OLD --new-lint NEW [--labels TSV]

- `stats`: logging statements (phi-lint's own count), findings by rule, and the share of
  statements with at least one finding.
- `sample`: a random sample of the statement findings (fixed seed), each with its label key,
  file:line, rule, field, expression, enclosing fn and a few lines of source for labelling.
  `--unlabelled` prints only the sampled findings the labels file does not cover yet.
- `score`: precision of the sample (share labelled `risky`), and every labelled `risky` finding
  that this binary no longer reports ("lost"). Exit 1 if a risky finding is lost or a sampled
  finding is unlabelled. `--misses` takes a list of risky values that passed (found by reading
  `passing`) and says which of them this binary flags.
- `passing`: the logging statements that have no finding, for reading them for misses.
- `diff`: the findings a newer binary drops and adds, with their labels, for reviewing the
  dropped ones that no label covers.

Label keys never use line numbers: (path, rule, field, expression text, occurrence), where the
occurrence is how many times the expression text appears in the file before the finding. It
depends on the corpus alone, not on what phi-lint flags, so a newer phi-lint that flags more or
fewer findings still meets the same keys. A label matches a finding whatever its rule (a newer
phi-lint may report a finding under another rule); `score` says when the rule changed.

Statements: phi-lint's JSON gives the statement count but not each finding's statement, so a
finding is attributed to the nearest sink (`name!`, `#[instrument`, `.record(`) that starts before
it in the file. `passing` finds the sinks itself with a small scanner (strings, comments and
brackets aware; test modules and test fns skipped), so its list approximates phi-lint's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

DEFAULT_SEED = 20261201
DEFAULT_N = 100

# Rules that judge a value reaching a sink; the others are about the tool or its configuration.
# `stats` also counts a statement with `phi::unparsed-macro` as flagged: the gate fails on it.
STATEMENT_RULES = {
    "phi::interpolation",
    "phi::error-message",
    "phi::instrument-arg",
    "phi::instrument-ret",
    "phi::print",
}

SINK_MACROS = (
    "trace debug info warn error event log span trace_span debug_span info_span warn_span "
    "error_span record_all print println eprint eprintln panic unreachable todo unimplemented "
    "assert debug_assert assert_eq assert_ne debug_assert_eq debug_assert_ne dbg write writeln"
).split()
SINK_RE = re.compile(
    r"(?<![\w:])((?:[A-Za-z_]\w*::)*(" + "|".join(SINK_MACROS) + r"))!\s*([(\[{])"
    r"|#\[\s*(?:[A-Za-z_]\w*::)*instrument\b"
    r"|\.record\s*\("
)
TEST_ATTR_RE = re.compile(r"#\[\s*(?:cfg\s*\(\s*test\s*\)|(?:[A-Za-z_]\w*::)*\w*test)\s*\]")
IDENT_RE = re.compile(r"[A-Za-z_]\w*")
LEVEL_WORDS = {
    "target", "parent", "name", "logger", "Level", "tracing", "log", "TRACE", "DEBUG", "INFO",
    "WARN", "ERROR", "Trace", "Debug", "Info", "Warn", "Error", "std", "io", "stdout", "stderr",
    "field", "Empty", "true", "false", "self",
}


# ---------------------------------------------------------------------------------------------
# Running phi-lint


def corpus_or_skip(path: str) -> Path | None:
    root = Path(path)
    if not root.is_dir():
        print(f"skipped: corpus directory {root} is absent (reference data, not part of the project)")
        return None
    return root


def run_lint(lint: str, root: Path) -> dict:
    proc = subprocess.run(
        [lint, "check", "--format", "json", str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode not in (0, 1, 2) or not proc.stdout.strip():
        sys.exit(f"phi-lint exited {proc.returncode} without a report:\n{proc.stderr[-2000:]}")
    doc = json.loads(proc.stdout)
    doc["_exit"] = proc.returncode
    return doc


# ---------------------------------------------------------------------------------------------
# Sources, offsets and keys


class Sources:
    def __init__(self, root: Path):
        self.root = root
        self.cache: dict[str, str] = {}
        self.line_starts: dict[str, list[int]] = {}

    def text(self, rel: str) -> str:
        if rel not in self.cache:
            try:
                self.cache[rel] = (self.root / rel).read_text(encoding="utf-8", errors="replace")
            except OSError:
                self.cache[rel] = ""
        return self.cache[rel]

    def starts(self, rel: str) -> list[int]:
        if rel not in self.line_starts:
            text = self.text(rel)
            starts = [0]
            starts.extend(i + 1 for i, c in enumerate(text) if c == "\n")
            self.line_starts[rel] = starts
        return self.line_starts[rel]

    def offset(self, rel: str, line: int, column: int) -> int:
        starts = self.starts(rel)
        if not 1 <= line <= len(starts):
            return 0
        return starts[line - 1] + max(column - 1, 0)

    def line_of(self, rel: str, offset: int) -> int:
        starts = self.starts(rel)
        lo, hi = 0, len(starts)
        while lo + 1 < hi:
            mid = (lo + hi) // 2
            if starts[mid] <= offset:
                lo = mid
            else:
                hi = mid
        return lo + 1

    def lines(self, rel: str, first: int, last: int) -> list[tuple[int, str]]:
        all_lines = self.text(rel).split("\n")
        first = max(first, 1)
        last = min(last, len(all_lines))
        return [(n, all_lines[n - 1]) for n in range(first, last + 1)]


def norm(text: str) -> str:
    """One line, single spaces, no tabs: the form stored in a labels file."""
    return " ".join(text.split())


@dataclass(frozen=True)
class Key:
    path: str
    rule: str
    field: str
    expr: str
    occ: int

    def loose(self) -> tuple[str, str, str, int]:
        """The key without the rule, which a newer phi-lint may change."""
        return (self.path, self.field, self.expr, self.occ)

    def tsv(self) -> str:
        return "\t".join([self.path, self.rule, self.field, self.expr, str(self.occ)])


@dataclass
class Found:
    raw: dict
    key: Key
    offset: int
    statement: tuple[str, int]


def stmt_start(text: str, offset: int, macro: str) -> int:
    """The start of the nearest sink before `offset` whose name is the finding's macro."""
    name = macro.strip("#[]").lstrip(".").rsplit("::", 1)[-1] or "instrument"
    best = -1
    for m in re.finditer(r"(?<!\w)" + re.escape(name) + r"\b", text[: offset + 1]):
        best = m.start()
    return best


def findings(doc: dict, src: Sources, rules: set[str] = STATEMENT_RULES) -> list[Found]:
    out = []
    for f in doc.get("findings", []):
        if f["rule"] not in rules:
            continue
        text = src.text(f["file"])
        off = src.offset(f["file"], f["line"], f["column"])
        key = Key(f["file"], f["rule"], norm(f["field"]), norm(f["expr"]), occurrence(text, off, f["expr"]))
        out.append(Found(f, key, off, (f["file"], stmt_start(text, off, f["macro"]))))
    out.sort(key=lambda x: (x.key.path, x.offset, x.key.field))
    return out


def occurrence(text: str, off: int, expr: str) -> int:
    """Which occurrence of the expression's text in the file the finding is.

    The one that contains the reported position, else the nearest: phi-lint may report the
    position of a peeled sub-expression (after `&`), or of `err` for an `#[instrument(err)]`.
    Counted on the source alone, so it does not depend on what phi-lint flags elsewhere.
    """
    pattern = r"\s*".join(re.escape(tok) for tok in expr.split())
    if not pattern:
        return 0
    if re.match(r"\w", expr.strip()):
        pattern = r"(?<!\w)" + pattern
    if re.search(r"\w$", expr.strip()):
        pattern += r"(?!\w)"
    best, best_dist = 0, None
    for i, m in enumerate(re.finditer(pattern, text)):
        dist = 0 if m.start() <= off < m.end() else min(abs(m.start() - off), abs(m.end() - off))
        if best_dist is None or dist < best_dist:
            best, best_dist = i, dist
        if m.start() > off and best_dist is not None and m.start() - off > best_dist:
            break
    return best


# ---------------------------------------------------------------------------------------------
# Labels


@dataclass
class Label:
    key: Key
    label: str
    reason: str


def read_labels(path: str | None) -> dict[tuple, Label]:
    labels: dict[tuple, Label] = {}
    if not path or not Path(path).exists():
        return labels
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) < 7 or cols[5] not in ("risky", "safe"):
            sys.exit(f"{path}:{n}: expected path, rule, field, expr, occ, risky|safe, reason")
        key = Key(cols[0], cols[1], cols[2], cols[3], int(cols[4]))
        labels[key.loose()] = Label(key, cols[5], cols[6])
    return labels


def priority(key: Key, seed: int) -> str:
    """A finding's place in the sample order: a hash of the seed and its key (without the rule)."""
    text = "\t".join([str(seed), key.path, key.field, key.expr, str(key.occ)])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def draw(found: list[Found], n: int, seed: int) -> list[Found]:
    """The `n` findings of lowest priority: a uniform random sample for a fixed seed.

    Bottom-k sampling by hash rather than `random.sample`: when a newer phi-lint drops or adds
    findings, the rest keep their priorities, so the new sample keeps every old sampled finding
    that is still reported and takes in only the new findings that rank low enough. The labels
    of the old sample carry over and only the newcomers need labelling.
    """
    ranked = sorted(found, key=lambda x: priority(x.key, seed))
    return sorted(ranked[:n], key=lambda x: (x.key.path, x.key.rule, x.key.field, x.key.expr, x.offset))


# ---------------------------------------------------------------------------------------------
# Commands


def cmd_stats(args, root: Path) -> int:
    doc = run_lint(args.lint, root)
    src = Sources(root)
    found = findings(doc, src, STATEMENT_RULES | {"phi::unparsed-macro"})
    summary = doc["summary"]
    by_rule = Counter(f["rule"] for f in doc.get("findings", []))
    statements = summary["statements"]
    flagged = len({f.statement for f in found})
    share = flagged / statements if statements else 0.0
    print(f"corpus: {root}")
    print(f"files: {summary['files']}  statements: {statements}  findings: {summary['findings']}")
    for rule, count in sorted(by_rule.items()):
        print(f"  {rule}: {count}")
    print(f"statements with >=1 finding: {flagged} / {statements} = {share:.1%}")
    if summary.get("errors"):
        print(f"errors: {summary['errors']} (files phi-lint could not read or parse)")
    return 0


def show(f: Found, src: Sources, context: int) -> None:
    r = f.raw
    print(f"=== {r['file']}:{r['line']}  {r['rule']}  [{r['macro']}]  fn {r['function'] or '-'}")
    print(f"key\t{f.key.tsv()}")
    print(f"field {r['field']!r}  expr {r['expr']!r}  -- {r['message']}")
    for n, line in src.lines(r["file"], r["line"] - context, r["end_line"] + context):
        mark = ">" if r["line"] <= n <= r["end_line"] else " "
        print(f"{mark}{n:5} {line}")


def cmd_sample(args, root: Path) -> int:
    doc = run_lint(args.lint, root)
    src = Sources(root)
    sample = draw(findings(doc, src), args.n, args.seed)
    labels = read_labels(args.labels)
    shown = 0
    for f in sample:
        label = labels.get(f.key.loose())
        if args.unlabelled and label:
            continue
        show(f, src, args.context)
        if label:
            print(f"label: {label.label} -- {label.reason}")
        print()
        shown += 1
    print(f"{shown} of {len(sample)} sampled findings shown (seed {args.seed})")
    return 0


def cmd_score(args, root: Path) -> int:
    doc = run_lint(args.lint, root)
    src = Sources(root)
    found = findings(doc, src)
    labels = read_labels(args.labels)
    sample = draw(found, args.n, args.seed)
    risky = safe = 0
    unlabelled = []
    for f in sample:
        label = labels.get(f.key.loose())
        if label is None:
            unlabelled.append(f)
        elif label.label == "risky":
            risky += 1
        else:
            safe += 1
    labelled = risky + safe
    print(f"corpus: {root}  sample: {len(sample)} of {len(found)} findings (seed {args.seed})")
    if labelled:
        print(f"precision: {risky} risky / {labelled} labelled = {risky / labelled:.1%}")
    for f in unlabelled:
        print(f"unlabelled: {f.raw['file']}:{f.raw['line']}\t{f.key.tsv()}")

    current = {f.key.loose(): f for f in found}
    lost = [l for l in labels.values() if l.label == "risky" and l.key.loose() not in current]
    moved = [
        (l, current[l.key.loose()].key.rule)
        for l in labels.values()
        if l.key.loose() in current and current[l.key.loose()].key.rule != l.key.rule
    ]
    n_risky = sum(1 for l in labels.values() if l.label == "risky")
    n_safe = sum(1 for l in labels.values() if l.label == "safe")
    dropped_safe = sum(
        1 for l in labels.values() if l.label == "safe" and l.key.loose() not in current
    )
    print(
        f"labelled risky findings still flagged: {n_risky - len(lost)} / {n_risky}; "
        f"labelled safe findings no longer flagged: {dropped_safe} / {n_safe}"
    )
    for l in lost:
        print(f"LOST risky: {l.key.tsv()}\t-- {l.reason}")
    for l, rule in moved:
        print(f"rule changed: {l.key.tsv()} -> {rule}")
    if args.misses:
        misses = read_misses(args.misses)
        flagged = [m for m in misses if m[0] in current]
        print(f"known misses now flagged: {len(flagged)} / {len(misses)}")
        for key, reason in misses:
            state = current[key].key.rule if key in current else "still passes"
            print(f"  {state}: {chr(9).join(map(str, key))}\t-- {reason}")
    return 1 if lost or unlabelled else 0


def read_misses(path: str) -> list[tuple[tuple[str, str, str, int], str]]:
    """Known misses: (path, field, expr, occurrence) of a risky value that passed, and why."""
    out = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) < 5:
            sys.exit(f"{path}:{n}: expected path, field, expr, occ, reason")
        out.append(((cols[0], cols[1], cols[2], int(cols[3])), cols[4]))
    return out


def cmd_diff(args, root: Path) -> int:
    """Findings of `--lint` that `--new-lint` no longer reports, and the new ones, with labels."""
    src = Sources(root)
    old = {f.key.loose(): f for f in findings(run_lint(args.lint, root), src)}
    new = {f.key.loose(): f for f in findings(run_lint(args.new_lint, root), src)}
    labels = read_labels(args.labels)
    gone = [f for k, f in old.items() if k not in new]
    added = [f for k, f in new.items() if k not in old]
    print(f"corpus: {root}  findings: {len(old)} -> {len(new)}; dropped {len(gone)}, new {len(added)}")
    for title, group in (("dropped", gone), ("new", added)):
        for f in sorted(group, key=lambda x: (x.key.path, x.offset)):
            label = labels.get(f.key.loose())
            mark = f"{label.label}: {label.reason}" if label else "unlabelled"
            print(f"{title}\t{f.raw['file']}:{f.raw['line']}\t{f.key.rule}\t{f.key.field}\t{f.key.expr[:80]}\t[{mark}]")
    return 0


def skip_spans(text: str) -> list[tuple[int, int]]:
    """Byte spans of test code: the item after `#[cfg(test)]` or a `#[...test]` attribute."""
    spans = []
    for m in TEST_ATTR_RE.finditer(text):
        brace = text.find("{", m.end())
        semi = text.find(";", m.end())
        if brace < 0 or (0 <= semi < brace):
            continue
        end = match_close(text, brace)
        spans.append((m.start(), end))
    return spans


def match_close(text: str, open_at: int) -> int:
    """The offset just past the bracket that closes the one at `open_at`."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = [pairs[text[open_at]]]
    i = open_at + 1
    n = len(text)
    while i < n and stack:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        elif c == "r" and re.match(r'r#*"', text[i : i + 10]) and not text[i - 1 : i].isalnum():
            hashes = re.match(r"r(#*)\"", text[i:]).group(1)
            j = text.find('"' + hashes, i + 2 + len(hashes))
            i = n if j < 0 else j + 1 + len(hashes)
            continue
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i : i + 4]):
            i = text.find("'", i + 1 + (text[i + 1] == "\\")) + 1
            continue
        elif c in pairs:
            stack.append(pairs[c])
        elif c in ")]}":
            stack.pop()
        i += 1
    return i


def strip_literals(text: str) -> tuple[str, list[str]]:
    """The text without string literals, and the literals' contents."""
    lits = []

    def keep(m):
        lits.append(m.group(0))
        return '""'

    bare = re.sub(r'r(#*)"(?:.|\n)*?"\1|"(?:\\.|[^"\\])*"', keep, text)
    return bare, lits


def interpolates(stmt: str) -> bool:
    """Whether a statement interpolates anything: an identifier outside literals or `{x}`."""
    body = stmt[stmt.find("(") + 1 :] if "(" in stmt else stmt
    bare, lits = strip_literals(body)
    idents = {m.group(0) for m in IDENT_RE.finditer(bare)} - LEVEL_WORDS
    captures = any(re.search(r"(?<!\{)\{[A-Za-z_]", lit) for lit in lits)
    return bool(idents) or captures


def non_code_spans(text: str) -> list[tuple[int, int]]:
    """Spans of comments and string literals, where a sink's name is not a call."""
    spans = []
    token = re.compile(r'//[^\n]*|/\*|r(#*)"|"|\'(?:\\.|[^\\\'])\'')
    i = 0
    while True:
        m = token.search(text, i)
        if m is None:
            return spans
        start, tok = m.start(), m.group(0)
        if m.start() > 0 and tok.startswith("r") and (text[start - 1].isalnum() or text[start - 1] == "_"):
            i = start + 1
            continue
        if tok.startswith("//") or tok.startswith("'"):
            end = m.end()
        elif tok == "/*":
            depth, j = 1, m.end()
            while depth and j < len(text):
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            end = j
        elif tok.startswith("r"):
            close = text.find('"' + m.group(1), m.end())
            end = len(text) if close < 0 else close + 1 + len(m.group(1))
        else:
            j = m.end()
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            end = j + 1
        spans.append((start, end))
        i = end


def statements(text: str) -> list[tuple[int, int, str]]:
    skips = skip_spans(text) + non_code_spans(text)
    out = []
    for m in SINK_RE.finditer(text):
        start = m.start()
        if any(a <= start < b for a, b in skips):
            continue
        if m.group(3):
            end = match_close(text, m.end() - 1)
            name = m.group(2)
            if name in ("write", "writeln"):
                first = text[m.end() : m.end() + 60]
                if not re.match(r"\s*(?:&mut\s+)?(?:std::io::)?(?:io::)?std(?:out|err)\(", first):
                    continue
        elif m.group(0).startswith("#"):
            close = match_close(text, start + 1)
            fn_at = text.find("fn ", close)
            body = text.find("{", fn_at) if fn_at >= 0 else -1
            end = body if body >= 0 else close
        else:
            end = match_close(text, m.end() - 1)
        out.append((start, end, text[start:end]))
    return out


def cmd_passing(args, root: Path) -> int:
    doc = run_lint(args.lint, root)
    src = Sources(root)
    flagged_at = defaultdict(list)
    for f in doc.get("findings", []):
        flagged_at[f["file"]].append(src.offset(f["file"], f["line"], f["column"]))
    files = sorted(
        str(p.relative_to(root)) for p in root.rglob("*.rs") if "target" not in p.parts
    )
    passing = []
    total = 0
    for rel in files:
        text = src.text(rel)
        for start, end, stmt in statements(text):
            total += 1
            if any(start <= off < end for off in flagged_at.get(rel, [])):
                continue
            if interpolates(stmt):
                passing.append((rel, src.line_of(rel, start), norm(stmt)))
    print(
        f"corpus: {root}  sinks found by the scanner: {total} (phi-lint counts "
        f"{doc['summary']['statements']} statements); passing with an interpolation: {len(passing)}"
    )
    shown = passing if args.all or len(passing) <= args.n else sorted(
        random.Random(args.seed).sample(passing, args.n)
    )
    for rel, line, stmt in shown:
        print(f"{rel}:{line}\t{stmt[:240]}")
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("stats", "sample", "score", "passing", "diff"):
        s = sub.add_parser(name)
        s.add_argument("corpus")
        s.add_argument("--lint", required=True, help="the phi-lint binary")
        s.add_argument("--seed", type=int, default=DEFAULT_SEED)
        s.add_argument("--n", type=int, default=60 if name == "passing" else DEFAULT_N)
        if name in ("sample", "score", "diff"):
            s.add_argument("--labels", required=name == "score")
        if name == "diff":
            s.add_argument("--new-lint", required=True, help="the newer phi-lint binary")
        if name == "score":
            s.add_argument("--misses", help="known misses (TSV): report which are now flagged")
        if name == "sample":
            s.add_argument("--context", type=int, default=4)
            s.add_argument("--unlabelled", action="store_true")
        if name == "passing":
            s.add_argument("--all", action="store_true")
    args = p.parse_args()
    root = corpus_or_skip(args.corpus)
    if root is None:
        return 0
    return {
        "stats": cmd_stats,
        "sample": cmd_sample,
        "score": cmd_score,
        "passing": cmd_passing,
        "diff": cmd_diff,
    }[
        args.cmd
    ](args, root)


if __name__ == "__main__":
    sys.exit(main())
