#!/usr/bin/env python3
"""Every ctest test is in exactly one tier (README, "Set-up"): label `quick` or `full`.

usage: test_tiers.py BUILD_DIR"""
import re
import subprocess
import sys


def names(build, *args):
    out = subprocess.run(["ctest", "--test-dir", build, "-N", *args], capture_output=True, text=True, check=True).stdout
    return {m.group(1) for m in re.finditer(r"^\s*Test\s+#\d+: (.+)$", out, re.M)}


def main():
    build = sys.argv[1]
    every, quick, full = names(build), names(build, "-L", "^quick$"), names(build, "-L", "^full$")
    problems = []
    if quick & full:
        problems.append(f"in both tiers: {sorted(quick & full)}")
    if every - quick - full:
        problems.append(f"in no tier: {sorted(every - quick - full)}")
    if not quick or not full:
        problems.append(f"a tier is empty: quick {len(quick)}, full {len(full)}")
    print(f"tiers: {len(quick)} quick, {len(full)} full, {len(every)} tests")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
