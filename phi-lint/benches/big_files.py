#!/usr/bin/env python3
"""What one large generated file costs phi-lint: max RSS and wall time, per shape.

Each shape is a crate of one generated `src/lib.rs` (synthetic code, no real data), or of
`src/lib.rs` and the files it declares (`many-defs`); a file's size is the sum of them all. Every binary
given with `--lint` checks every shape as a process, in turn, in one run, under
`/usr/bin/time -f '%M %e'`; the table gives max RSS, its ratio to the file's size and the wall
time, and whether the reports of all binaries are byte-identical.

    python3 phi-lint/benches/big_files.py --lint OLD_BINARY --lint target/release/phi-lint
    python3 phi-lint/benches/big_files.py --lint target/release/phi-lint --shapes dense --formats json,sarif
    python3 phi-lint/benches/big_files.py --lint target/release/phi-lint --shapes dense --max-file-findings 1000000

`--max-file-findings N` writes `[lint] max-file-findings = N` to each crate's `phiguard.toml`, to
measure what a file of more findings than the default bound (10,000) costs when it is raised; a
binary older than that key fails on it.

Standard library only. Exits 0 after printing the table; 2 when a binary or /usr/bin/time is
missing, or a shape name is unknown. The files are written to a temporary directory (or `--dir`)
and removed afterwards unless `--keep`.
"""

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

MB = 1_000_000
# Pieces several shapes share.
USER = "pub struct User {\n    pub id: u64,\n}\n"
PATIENT = "pub struct Patient {\n    pub name: String,\n}\n"
LEAK = '    tracing::info!("{}", p.name);\n'


def fill(write, size, piece):
    """Writes `piece(i)` for i = 0, 1, ... until `size` bytes are written; returns the count."""
    n = i = 0
    while n < size:
        s = piece(i)
        write(s)
        n += len(s)
        i += 1
    return i


def quiet_infos(write, size):
    """Functions of ten `tracing::info!(user_id = %u.id, ...)` each: many statements, no finding."""
    def piece(i):
        body = "".join(
            f'    tracing::info!(user_id = %u.id, step = {k}, "step {k} of {i}");\n' for k in range(10)
        )
        return f"pub fn handle_{i}(u: &User) {{\n{body}}}\n"

    write(USER)
    return fill(write, size, piece)


def dense(write, size):
    """Functions of two statements, each with a finding (a name, by format and by field)."""
    def piece(i):
        return (
            f"pub fn seen_{i}(p: &Patient) {{\n"
            f'    tracing::info!("seen {{}}", p.name);\n'
            f'    tracing::warn!(name = %p.name, "again");\n'
            "}\n"
        )

    write(PATIENT)
    return fill(write, size, piece)


def one_liners(write, size):
    """One-line functions that format but do not log, and one that logs: many small items."""
    write("pub fn leak(p: &Patient) { tracing::info!(\"{}\", p.name); }\n")
    return fill(write, size, lambda i: f'pub fn label_{i}(n: u64) -> String {{ format!("#{{}}", n + {i}) }}\n')


def one_line(write, size):
    """`dense`'s functions, each a finding, and one-line functions that format, all on one line
    (a minified or generated file): nothing to cut at a line break."""
    write(PATIENT.replace("\n", " "))

    def piece(i):
        if i % 10 == 0:
            return f'pub fn leak_{i}(p: &Patient) {{ tracing::info!("{{}}", p.name); }} '
        return f'pub fn label_{i}(n: u64) -> String {{ format!("#{{}}", n + {i}) }} '

    n = fill(write, size, piece)
    write("\n")
    return n


def empty_fns(write, size):
    """`fn aN() {}` on a line each: the smallest items, each a name in the type index."""
    write("pub fn leak(p: &Patient) { tracing::info!(\"{}\", p.name); }\n" + PATIENT)
    return fill(write, size, lambda i: f"fn a{i}() {{}}\n")


def empty_fns_line(write, size):
    """The same functions, all on one line after the leak: a minified file of small items."""
    write("pub fn leak(p: &Patient) { tracing::info!(\"{}\", p.name); }\n" + PATIENT)
    n = fill(write, size, lambda i: f"fn a{i}() {{}}")
    write("\n")
    return n


def flat(piece):
    """A generator of a leak, then `piece(i)` up to the size: many items of one small kind."""
    def gen(write, size):
        write("pub fn leak(p: &Patient) { tracing::info!(\"{}\", p.name); }\n" + PATIENT)
        return fill(write, size, piece)

    return gen


def module(write, size):
    """`quiet_infos` inside one `pub mod generated { ... }`: one item larger than a chunk."""
    write("pub mod generated {\n    use super::User;\n")
    n = quiet_infos(write, size)
    write("}\n" + USER)
    return n


def framed(head, piece, tail):
    """A generator that writes `head`, pieces up to the size, then `tail`."""
    def gen(write, size):
        write(head)
        n = fill(write, size, piece)
        write(tail)
        return n

    return gen


def scrambled(i):
    """A number that looks generated: element `i` of a table."""
    return i * 2654435761 % 4294967296


# One function of `tracing::info!` statements, one of them a finding.
one_function = framed(
    'pub fn replay(u: &User, p: &Patient) {\n    tracing::info!(name = %p.name, "replay");\n',
    lambda i: f'    tracing::info!(user_id = %u.id, step = {i}, "replayed");\n',
    "}\n" + USER + PATIENT,
)

# One method of an `impl` in a module; a finding on every 100th statement.
impl_method = framed(
    "pub mod store {\n    pub struct Store;\n    pub struct Patient {\n        pub name: String,\n    }\n"
    "    impl Store {\n        pub fn replay(&self, p: &Patient, id: u64) {\n",
    lambda i: (
        f'            tracing::info!(name = %p.name, step = {i}, "replay");\n'
        if i % 100 == 0
        else f'            tracing::info!(record_id = id, step = {i}, "replayed");\n'
    ),
    "        }\n    }\n}\n",
)

# A generated `static TABLE` and one logging function: an initializer that cannot log.
static_table = framed(
    "pub fn leak(p: &Patient) { tracing::info!(\"{}\", p.name); }\n" + PATIENT
    + "pub static TABLE: &[u32] = &[\n",
    lambda i: f"    {scrambled(i)},\n",
    "];\n",
)

# One `vec![..]` statement larger than a chunk in a function that also logs.
big_statement = framed(
    "pub fn table(p: &Patient) -> Vec<u32> {\n" + LEAK + "    vec![\n",
    lambda i: f"        {scrambled(i)},\n",
    "    ]\n}\n" + PATIENT,
)

# One array expression larger than a chunk, bound by a `let` in a function that logs.
big_array = framed(
    "pub fn total(p: &Patient) -> u64 {\n" + LEAK + "    let table = [\n",
    lambda i: f"        {scrambled(i)}u64,\n",
    "    ];\n    table.iter().sum()\n}\n" + PATIENT,
)

# One function of `let` statements that cannot log, and one that logs at its end.
many_lets = framed(
    "pub fn handler(p: &Patient) {\n",
    lambda i: f"    let step_{i % 7} = step({i}).saturating_add(1);\n",
    LEAK + "}\n" + PATIENT,
)

def chain(head, indent, tail):
    """A generator of `let`s each bound to the one before, from `v0`, between `head` and `tail`;
    `{last}` in the tail is the chain's last local."""
    def gen(write, size):
        write(head)
        n = fill(write, size, lambda i: f"{indent}let v{i + 1} = v{i};\n")
        write(tail.replace("{last}", f"v{n}"))
        return n

    return gen


# One function of `let`s each bound to the one before, from a leak, the last one logged.
let_chain = chain(
    "pub fn handler(p: &Patient) {\n    let v0 = &p.name;\n",
    "    ",
    "    tracing::info!(user_id = %{last});\n}\n" + PATIENT,
)

# The same chain in a closure that logs its end, called with a leak a thousand times.
closure_chain = chain(
    "pub fn handler(p: &Patient) {\n    let log = |x: &str| {\n        let v0 = x;\n",
    "        ",
    "        tracing::info!(user_id = %{last});\n    };\n" + "    log(&p.name);\n" * 1000 + "}\n" + PATIENT,
)

# Generated type definitions: a type index of many small items, and one logging function.
structs = framed(
    "pub fn leak(p: &Patient) {\n" + LEAK + "}\n" + PATIENT,
    lambda i: (
        f"pub struct Row{i} {{ pub a: u32, pub b: String, pub c: Vec<u8>, "
        "pub d: Option<Uuid>, pub e: HashMap<String, u64> }\n"
    ),
    "",
)

# One `tracing::info!` of many fields on one line, each a finding.
long_line = framed(
    "pub fn handler(p: &Patient) {\n    tracing::info!(",
    lambda i: f"a{i} = %p.name, ",
    ");\n}\n" + PATIENT,
)

# One format string of many inline captures, each a finding: `"{a0} {a1} .."`.
captures = framed(
    "pub fn handler(p: &Patient) {\n    tracing::info!(\"",
    lambda i: f"{{a{i}}} ",
    "\");\n}\n" + PATIENT,
)

# One function of closures that log, each a finding, and a call of one with a leak at its end.
closures = framed(
    "pub fn handler(p: &Patient) {\n",
    lambda i: f"    let c{i} = |x: &str| tracing::info!(x = %x, step = {i});\n",
    "    c1(&p.name);\n" + LEAK + "}\n" + PATIENT,
)

# One `match` statement larger than a chunk, in a function that logs.
big_match = framed(
    "pub fn handler(p: &Patient, k: u32) {\n" + LEAK + "    let v = match k {\n",
    lambda i: f"        {i} => step({i}),\n",
    "        _ => 0,\n    };\n    tracing::info!(v);\n}\n" + PATIENT,
)

# One `cfg_if!` at the top of the file around functions that log: a macro's input, one piece.
cfg_if = framed(
    "cfg_if::cfg_if! {\n    if #[cfg(unix)] {\n"
    '        pub fn leak(p: &Patient) { tracing::info!("{}", p.name); }\n',
    lambda i: f'        pub fn f{i}(u: &User) {{ tracing::info!(user_id = %u.id, step = {i}); }}\n',
    "    }\n}\n" + USER + PATIENT,
)

# One `static` whose initializer logs and builds a table of calls: an expression, one piece.
lazy_static_init = framed(
    "pub static HOOK: std::sync::LazyLock<Vec<u64>> = std::sync::LazyLock::new(|| {\n"
    "    tracing::info!(\"init\");\n    vec![\n",
    lambda i: f"        step({i}),\n",
    "    ]\n});\n",
)

# One `static` built by a chain of calls, each of a block that logs: many small groups, one
# expression (a chain is at most 4,096 calls, so each block is about 1 KB).
static_chain = framed(
    "pub static HOOK: Builder = Builder::new()\n",
    lambda i: f"    .step({{ tracing::info!(step = {i}); {' '.join(f'let a{k} = {k};' for k in range(120))} {i} }})\n",
    ";\n",
)

# One generated `enum` of many variants, and one logging function: a single large item.
big_enum = framed(
    "pub fn leak(p: &Patient) {\n" + LEAK + "}\n" + PATIENT + "pub enum Opcode {\n",
    lambda i: f"    Op{i},\n",
    "}\n",
)

def many_definitions(write, size, add_file):
    """Files that each define `m!`, none byte-identical (every third logs its argument, the
    others drop it), and a `lib.rs` that declares them and calls `m!` with a leak 20 times: a
    name other files define is expanded with each of their definitions."""
    write(PATIENT + "pub fn handler(p: &Patient) {\n" + "    m!(p.name);\n" * 20 + "}\n")

    def piece(i):
        body = f'tracing::info!("step {i}: {{}}", $user_id)' if i % 3 == 0 else "let _ = $user_id;"
        text = f"macro_rules! m {{\n    (step {i}) => {{}};\n    ($user_id:expr) => {{ {body} }};\n}}\n"
        add_file(f"d{i}.rs", text)
        decl = f"#[macro_use]\nmod d{i};\n"
        write(decl)
        return text + decl

    return fill(lambda _: None, size, piece)


# Generators that take a third argument, `add_file(name, text)`, for more files in `src/`.
many_definitions.files = True

# name: (generator, size in bytes, what it is)
SHAPES = {
    "quiet-5": (quiet_infos, 5 * MB, "5 MB, functions of ten `tracing::info!(user_id = %u.id, ..)`, no finding"),
    "quiet-50": (quiet_infos, 50 * MB, "50 MB, the same"),
    "dense": (dense, 10 * MB, "10 MB, a finding on each statement"),
    "dense-50": (dense, 50 * MB, "50 MB, the same"),
    "one-liners": (one_liners, 40 * MB, "40 MB of one-line functions, one of them logging"),
    "one-line": (one_line, 5 * MB, "5 MB on one line: one-line functions, every tenth a finding"),
    "module": (module, 5 * MB, "5 MB, `quiet-5` inside one `pub mod generated { .. }`"),
    "one-function": (one_function, 5 * MB, "5 MB, one function of `tracing::info!` statements"),
    "impl-method": (impl_method, 5 * MB, "5 MB, one method of an `impl` in a module, a finding on every 100th statement"),
    "static-table": (static_table, 5 * MB, "5 MB, one `static TABLE: &[u32]` and one logging function"),
    "big-statement": (big_statement, 5 * MB, "5 MB, one `vec![..]` statement in a function that logs"),
    "big-array": (big_array, 5 * MB, "5 MB, one `let table = [..]` in a function that logs"),
    "many-lets": (many_lets, 5 * MB, "5 MB, one function of `let`s, and a log at its end"),
    "let-chain": (let_chain, 100_000, "0.1 MB, one function of `let`s each bound to the one before, from a leak"),
    "closure-chain": (closure_chain, 100_000, "0.1 MB, the same chain in a closure called with a leak 1,000 times"),
    "structs": (structs, 5 * MB, "5 MB of struct definitions of five fields"),
    "long-line": (long_line, 600_000, "0.6 MB, one `tracing::info!` of fields on one line, each a finding"),
    "captures": (captures, 5 * MB, "5 MB, one format string of inline captures, each a finding"),
    "captures-1": (captures, 300_000, "0.3 MB, the same, under the bound on placeholders"),
    "closures": (closures, 5 * MB, "5 MB, one function of closures that log, each a finding"),
    "big-match": (big_match, 5 * MB, "5 MB, one `match` statement in a function that logs"),
    "cfg-if": (cfg_if, 5 * MB, "5 MB, one `cfg_if!` around functions that log"),
    "cfg-if-1": (cfg_if, 800_000, "0.8 MB, the same, under the token bound"),
    "static-init": (lazy_static_init, 5 * MB, "5 MB, one `static` initializer that logs, of calls"),
    "static-chain": (static_chain, 4 * MB, "4 MB, one `static` built by a chain of calls of blocks that log"),
    "big-enum": (big_enum, 5 * MB, "5 MB, one `enum` of variants and one logging function"),
    "many-defs": (many_definitions, 250_000, "0.25 MB, files each defining `m!`, and 20 calls of it"),
    "empty-fns": (empty_fns, 5 * MB, "5 MB of `fn aN() {}`, a line each, and one leak"),
    "empty-fns-line": (empty_fns_line, 5 * MB, "5 MB of `fn aN() {}` on one line, after one leak"),
    "aliases": (flat(lambda i: f"type T{i} = u8;\n"), 5 * MB, "5 MB of `type TN = u8;` and one leak"),
    "unit-structs": (flat(lambda i: f"struct S{i};\n"), 5 * MB, "5 MB of `struct SN;` and one leak"),
    "uses": (flat(lambda i: f"use a{i}::b;\n"), 5 * MB, "5 MB of `use aN::b;` and one leak"),
}


def generate(root, name, max_findings=None):
    gen, size, _ = SHAPES[name]
    crate = os.path.join(root, name)
    os.makedirs(os.path.join(crate, "src"), exist_ok=True)
    with open(os.path.join(crate, "Cargo.toml"), "w") as f:
        f.write(f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n')
    if max_findings is not None:
        with open(os.path.join(crate, "phiguard.toml"), "w") as f:
            f.write(f"[lint]\nmax-file-findings = {max_findings}\n")
    src = os.path.join(crate, "src")
    written = []

    def add_file(rel, text):
        with open(os.path.join(src, rel), "w") as f:
            f.write(text)
        written.append(rel)

    with open(os.path.join(src, "lib.rs"), "w") as f:
        count = gen(f.write, size, add_file) if getattr(gen, "files", False) else gen(f.write, size)
    total = sum(os.path.getsize(os.path.join(src, rel)) for rel in ["lib.rs"] + written)
    return crate, total, count


def measure(lint, crate, fmt):
    """(max RSS in bytes, wall seconds, exit code, sha256 of the report)."""
    with tempfile.TemporaryFile() as out, tempfile.NamedTemporaryFile("r") as timing:
        rc = subprocess.call(
            ["/usr/bin/time", "-o", timing.name, "-f", "%M %e", lint, "check", ".", "--format", fmt],
            cwd=crate,
            stdout=out,
            stderr=subprocess.DEVNULL,
        )
        out.seek(0)
        digest = hashlib.sha256()
        for block in iter(lambda: out.read(1 << 20), b""):
            digest.update(block)
        fields = timing.read().split()
        # /usr/bin/time writes "Command exited with non-zero status N" first when N != 0.
        kb, secs = fields[-2], fields[-1]
    return int(kb) * 1024, float(secs), rc, digest.hexdigest()


def human(n):
    return f"{n / 1e9:.2f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lint", action="append", required=True, help="a phi-lint binary (repeatable)")
    p.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated, of: " + ", ".join(SHAPES))
    p.add_argument("--formats", default="json", help="comma-separated output formats")
    p.add_argument("--dir", help="where to write the files (default: a temporary directory)")
    p.add_argument("--keep", action="store_true", help="keep the generated files")
    p.add_argument("--max-file-findings", type=int, help="raise the bound on one file's findings")
    args = p.parse_args()
    shapes = [s for s in args.shapes.split(",") if s]
    unknown = [s for s in shapes if s not in SHAPES]
    if unknown:
        print(f"big_files: unknown shape {', '.join(unknown)}; known: {', '.join(SHAPES)}", file=sys.stderr)
        return 2
    lints = [os.path.abspath(x) for x in args.lint]
    for tool in lints + ["/usr/bin/time"]:
        if not os.access(tool, os.X_OK):
            print(f"big_files: {tool} is not an executable file", file=sys.stderr)
            return 2
    root = args.dir or tempfile.mkdtemp(prefix="phi-big-files-")
    os.makedirs(root, exist_ok=True)
    heads = " | ".join(os.path.relpath(x) if len(x) > 40 else x for x in args.lint)
    print(f"| file | format | {heads} | reports |")
    print("| --- | --- |" + " --- |" * len(lints) + " --- |")
    try:
        for name in shapes:
            crate, size, count = generate(root, name, args.max_file_findings)
            for fmt in args.formats.split(","):
                cells, digests = [], set()
                for lint in lints:
                    rss, secs, rc, digest = measure(lint, crate, fmt)
                    digests.add((rc, digest))
                    cells.append(f"{human(rss)} ({rss / size:.1f}×), {secs:.1f} s, exit {rc}")
                if len(lints) == 1:
                    same = "—"
                else:
                    same = "identical" if len(digests) == 1 else "DIFFER"
                what = f"`{name}`: {SHAPES[name][2]} ({size / MB:.1f} MB, {count:,} pieces)"
                print(f"| {what} | {fmt} | " + " | ".join(cells) + f" | {same} |", flush=True)
            if not args.keep:
                shutil.rmtree(crate)
    finally:
        if not args.keep and not args.dir:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
