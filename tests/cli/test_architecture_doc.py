#!/usr/bin/python3
"""docs/architecture.md matches the code: every path in backquotes exists, and every function named
in parentheses after a file, "`file` (`name`)", is defined or declared in that file.

Usage: test_architecture_doc.py SOURCE_DIR. Exits 1 naming each mismatch.
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
text = (root / "docs" / "architecture.md").read_text()
problems = []
paths = set(re.findall(r"`([a-z_]+/[A-Za-z0-9_./]+\.(?:cpp|hpp|py|md))`", text))
if len(paths) < 30:
    problems.append(f"only {len(paths)} paths found: the map should name the files of a run's path")
for p in sorted(paths):
    if not (root / p).is_file():
        problems.append(f"names {p}, which does not exist")
for path, name in re.findall(r"`([a-z_]+/[A-Za-z0-9_./]+\.(?:cpp|hpp|py))` \(`([A-Za-z_][A-Za-z0-9_]*)`", text):
    file = root / path
    if file.is_file() and not re.search(r"\b" + re.escape(name) + r"\b", file.read_text()):
        problems.append(f"says {path} holds {name}, which it does not mention")
for p in problems:
    print("docs/architecture.md " + p)
print(f"{len(paths)} paths checked, {len(problems)} problems")
sys.exit(1 if problems else 0)
