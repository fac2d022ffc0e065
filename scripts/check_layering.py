#!/usr/bin/python3
"""Checks that the source folders include each other only downwards, in the layer order below.

A file in folder F may include headers of F itself and of the folders listed before F. Prints the
folder graph and every include that points up a layer; exits 1 if there is one (which is also how
a cycle between folders would show). Two more rules of the house (issue 36): below the front doors
no `catch (const std::runtime_error&)` (a numerical route catches NumericalFailure), and no TOML
text built outside io/. Run from anywhere: python3 scripts/check_layering.py [ROOT]
"""
import pathlib
import re
import sys

# The layers, lowest first (docs/development.md, "Map of the code"). A tuple holds peers: the same layer, and
# they do not include each other (apps/ the command line, python/ the Python module, library/ the
# public C++ API).
LAYERS = ["numerics", "dynamics", "accounting", "solver", "models", "analyses", "validation",
          "commands", "io", ("apps", "python", "library")]
FOLDERS = [f for layer in LAYERS for f in (layer if isinstance(layer, tuple) else (layer,))]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/')

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
rank = {name: i for i, layer in enumerate(LAYERS) for name in (layer if isinstance(layer, tuple) else (layer,))}
graph, upward = {}, []
for folder in FOLDERS:
    for path in sorted((root / folder).rglob("*")):
        if path.suffix not in (".hpp", ".cpp", ".h", ".cc", ".in"):
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m or m.group(1) not in rank or m.group(1) == folder:
                continue
            graph.setdefault(folder, set()).add(m.group(1))
            if rank[m.group(1)] >= rank[folder]:
                what = "a later layer" if rank[m.group(1)] > rank[folder] else "a peer"
                upward.append(f"{path.relative_to(root)}:{number}: {folder} includes {m.group(1)}, {what}")
unknown = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")
                 and p.name not in FOLDERS and p.name not in ("tests", "bench", "examples", "docs", "scripts",
                                                              "cmake")
                 and not p.name.startswith("build") and any(p.rglob("*.[ch]pp")))
# Errors mean one thing (issue 36): below the front doors a numerical route catches NumericalFailure
# (numerics/numerical_failure.hpp), never std::runtime_error, whose other kinds it would swallow.
CATCH = re.compile(r'catch\s*\(\s*const\s+std::runtime_error\s*&')
rule_breaks = []
for folder in FOLDERS[:FOLDERS.index("io")]:
    for path in sorted((root / folder).rglob("*.[ch]pp")):
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if CATCH.search(line):
                rule_breaks.append(f"{path.relative_to(root)}:{number}: catches std::runtime_error; catch NumericalFailure")
# TOML is a format: its text is built and parsed in io/ only (io/config_text.hpp renders the values
# Python, RunBuilder and the one-liners hand over). A string literal that opens a section ("[table]\n",
# "\n[") outside io/ is TOML text built elsewhere.
TOML_TEXT = re.compile(r'"[^"]*(\[[A-Za-z_.]+\]\\n|\\n\[)')
for folder in FOLDERS:
    if folder == "io":
        continue
    for path in sorted((root / folder).rglob("*.[ch]pp")):
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if TOML_TEXT.search(line):
                rule_breaks.append(f"{path.relative_to(root)}:{number}: builds TOML text; hand values to io/config_text.hpp")
for folder in FOLDERS:
    print(f"{folder:>11} -> {', '.join(sorted(graph.get(folder, ()), key=rank.get)) or '(nothing)'}")
for u in upward:
    print("UPWARD " + u)
for u in unknown:
    print(f"UNKNOWN source folder {u}: add it to LAYERS")
for s in rule_breaks:
    print("RULE " + s)
sys.exit(1 if upward or unknown or rule_breaks else 0)
