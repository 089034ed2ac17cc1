#!/usr/bin/env python3
"""phi-lint on every crate of a cargo registry's source directory.

Every file of a published crate compiled when it was published, so a crate phi-lint refuses
(exit 2) is a false refusal unless a file it names really is missing. Prints one line per crate
that phi-lint refuses, with its errors, and a count.

    python3 phi-lint/benches/registry_scan.py ~/.cargo/registry/src/*/ --lint target/release/phi-lint

Skips (exit 0) with a message when the directory is absent. Exit 1 when a crate is refused.
"""
import argparse
import json
import os
import subprocess
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("registry", help="a directory of unpacked crates (~/.cargo/registry/src/<index>/)")
    p.add_argument("--lint", required=True, help="a phi-lint binary")
    p.add_argument("--timeout", type=float, default=120, help="seconds per crate")
    args = p.parse_args()
    if not os.path.isdir(args.registry):
        print(f"registry_scan: {args.registry} is absent; skipped", file=sys.stderr)
        return 0
    crates = sorted(e.path for e in os.scandir(args.registry) if e.is_dir())
    refused = 0
    for path in crates:
        name = os.path.basename(path)
        try:
            run = subprocess.run(
                [args.lint, "check", path, "--format", "json", "--allow-no-statements"],
                capture_output=True, text=True, timeout=args.timeout,
            )
        except subprocess.TimeoutExpired:
            print(f"{name}: timed out after {args.timeout:.0f} s")
            refused += 1
            continue
        try:
            report = json.loads(run.stdout)
        except ValueError:
            print(f"{name}: no report (exit {run.returncode}): {run.stderr.strip()[:200]}")
            refused += 1
            continue
        if report["summary"]["exit_code"] == 2:
            refused += 1
            print(f"{name}: exit 2")
            for e in report.get("errors", []):
                at = f":{e['line']}" if e.get("line") else ""
                print(f"  {e['file']}{at}: {e['message'][:200]}")
    print(f"{refused} of {len(crates)} crates refused")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
