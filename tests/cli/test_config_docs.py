#!/usr/bin/env python3
"""docs/config.md's key tables against the program's own lists (issue: docs that match the program).

For each table whose keys do not depend on a kind ([orders] by values, [domain], [report],
[analysis], [grid], [output]), a configuration with an unknown key in it is refused, and the refusal
lists the keys the program allows there ("allowed here: ..."; io/toml_section.hpp, allow_only).
That list must equal the keys of the section's table in docs/config.md, and the allowed top-level
tables must equal the ones the docs list.

usage: test_config_docs.py RDPDYN SOURCE_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

RDPDYN, SOURCE = sys.argv[1], sys.argv[2]
DOC = open(os.path.join(SOURCE, "docs", "config.md"), encoding="utf-8").read()
BASE = open(os.path.join(SOURCE, "examples", "figure1_lambda1.toml"), encoding="utf-8").read()


def documented_keys(section):
    """The first column of the first table after the heading '## `[section]`'."""
    start = DOC.index(f"## `[{section}]`")
    rows = []
    for line in DOC[start:].splitlines()[1:]:
        if line.startswith("## "):
            break
        if line.startswith("| `"):
            rows.append(line)
        elif rows and not line.startswith("|"):
            break
    return {re.match(r"\| `([^`]+)`", r).group(1) for r in rows}


def allowed_keys(section, extra=""):
    text = BASE + f"\n[{section}]\n{extra}zzz_unknown = 1\n" if f"[{section}]" not in BASE else \
        BASE.replace(f"[{section}]\n", f"[{section}]\nzzz_unknown = 1\n", 1)
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(text)
    r = subprocess.run([RDPDYN, "solve", f.name, "--json"], capture_output=True, text=True)
    os.unlink(f.name)
    m = re.search(r"allowed here: ([^\n]*)", r.stderr)
    return r.returncode, set(m.group(1).split(", ")) if m else set(), r.stderr


for section in ("domain", "report", "analysis", "grid", "output"):
    code, program, stderr = allowed_keys(section)
    docs = documented_keys(section)
    check(f"[{section}]: an unknown key exits 2 naming the allowed ones", code == 2 and program, stderr)
    check(f"[{section}]: docs/config.md's table lists exactly the program's keys", docs == program,
          {"only in the docs": sorted(docs - program), "only in the program": sorted(program - docs)})

# The top-level tables (docs/config.md, "General typing rules").
with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
    f.write(BASE + "\n[zzz_table]\nx = 1\n")
r = subprocess.run([RDPDYN, "solve", f.name], capture_output=True, text=True)
os.unlink(f.name)
m = re.search(r"allowed here: ([^\n]*)", r.stderr)
program = set(m.group(1).split(", ")) if m else set()
rules = DOC[DOC.index("Top-level keys allowed"):]
listed = re.search(r"`([a-z, \n]+)`", rules).group(1)
documented = {k.strip() for k in listed.replace("\n", " ").split(",")}
check("top-level tables: docs/config.md lists exactly the program's", documented == program,
      {"only in the docs": sorted(documented - program), "only in the program": sorted(program - documented)})
finish()
