#!/usr/bin/env python3
"""docs/analyses.md against the program (issue: docs that match the program).

- The table of analyses lists every registered analysis (`rdpdyn analyses --json`), in the
  registry's order, each with the registry's status (altschuler-talwar-thm5.6 was `derived` in one
  place and `published` in another; nine entries were missing).
- "Status of an analysis" has a bullet for every status the program prints, and the JSON field
  table's `status` row names every one (it listed three of eight).
- The HDF5 table states the shape the program writes for an entry that does not apply.
- The soundness campaign's "Not covered" names are those of tests/soundness/campaign.py's docstring.
- The entries labelled "certified up to an assumed FFT round-off bound" are those the docs name, and
  docs/pld.md section 4 states the assumption and keeps the margin table.

usage: test_analyses_docs.py RDPDYN SOURCE_DIR
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

RDPDYN, SOURCE = sys.argv[1], sys.argv[2]
DOC = open(os.path.join(SOURCE, "docs", "analyses.md"), encoding="utf-8").read()
registry = json.loads(subprocess.run([RDPDYN, "analyses", "--json"], capture_output=True, text=True).stdout)
compare = json.loads(subprocess.run([RDPDYN, "compare", os.path.join(SOURCE, "examples", "figure1_lambda1.toml"),
                                     "--json"], capture_output=True, text=True).stdout)
statuses = set(compare["statuses"])

table = DOC[DOC.index("| Name | Status | Citation |"):]
table = table[:table.index("\n\n")]
rows = [(m.group(1), m.group(2).strip()) for m in re.finditer(r"^\| `([a-z0-9.-]+)` \| ([^|]*)\|", table, re.M)]
check("the table of analyses lists the registry, in its order",
      [n for n, _ in rows] == [a["name"] for a in registry],
      {"docs": [n for n, _ in rows], "registry": [a["name"] for a in registry]})
for a in registry:
    documented = dict(rows).get(a["name"], "")
    check(f"{a['name']}: the table's status is the registry's ({a['status']})",
          documented.split(" ")[0] == a["status"], documented)

status_section = DOC[DOC.index("## Status of an analysis"):DOC.index("### Disputed")]
bullets = set(re.findall(r"^- \*\*([a-z-]+)\*\*", status_section, re.M))
check("Status of an analysis: one bullet per status the program prints", bullets == statuses,
      {"docs": sorted(bullets), "program": sorted(statuses)})
check("the number of statuses in the text is the program's",
      re.search(r"Every analysis has one of (\w+) statuses", DOC).group(1) ==
      {6: "six", 7: "seven", 8: "eight", 9: "nine"}.get(len(statuses)), len(statuses))
status_row = re.search(r"^\| `analyses\[\]\.status`[^\n]*", DOC, re.M).group(0)
check("the JSON field table's status row names every status",
      statuses <= set(re.findall(r"`([a-z-]+)`", status_row)), status_row[:400])

hdf5_row = re.search(r"^\| `/analyses/<name>` \|[^\n]*", DOC, re.M).group(0)
check("the HDF5 table: an entry that does not apply is NaN over the orders (schema 5)",
      "float64 (K)" in hdf5_row and "NaN at every order" in hdf5_row and "(0) if refused" not in hdf5_row, hdf5_row)

campaign = open(os.path.join(SOURCE, "tests", "soundness", "campaign.py"), encoding="utf-8").read()
docstring = campaign[campaign.index('Not covered'):campaign.index('"""', campaign.index('Not covered'))]
not_covered = DOC[DOC.index("**Not covered**"):]
not_covered = not_covered[:not_covered.index("Where they are checked instead")]
registered = {a["name"] for a in registry}
# Abbreviations expanded on both sides ("-b2", "-i2"); "kind pdi" is a run kind, not the entry.
not_covered = not_covered.replace("`altschuler-talwar-b1`/`-b2`/`-b3`",
                                  "`altschuler-talwar-b1` `altschuler-talwar-b2` `altschuler-talwar-b3`")
not_covered = re.sub(r"\(`ganesh-lemma-c1`, `-i2`\)", "(`ganesh-lemma-c1` `ganesh-lemma-i2`)", not_covered)
names = {n for n in re.findall(r"`([a-z0-9.-]+)`", not_covered) if n in registered}
words = docstring.replace("altschuler-talwar-b1/b2/b3", "altschuler-talwar-b1 altschuler-talwar-b2 altschuler-talwar-b3")
words = words.replace("ganesh-lemma-c1, -i2", "ganesh-lemma-c1, ganesh-lemma-i2").replace("kind pdi", "kind")
in_docstring = {n for n in re.findall(r"(?<![\w-])([a-z][a-z0-9.-]*[a-z0-9])(?![\w-])", words) if n in registered}
check("the campaign's 'Not covered' analyses are those its docstring names", names and names == in_docstring,
      {"only in the docs": sorted(names - in_docstring), "only in the docstring": sorted(in_docstring - names)})
# The entries composed by FFT: the paragraph "Certified up to an assumed FFT round-off bound" names
# exactly those whose status note carries the label (analyses/analysis.hpp, kFftRoundOffLabel), and
# the JSON field table's status_note row quotes the label.
FFT_LABEL = "certified up to an assumed FFT round-off bound (docs/pld.md section 4)"
fft_doc = DOC[DOC.index("**Certified up to an assumed FFT round-off bound.**"):]
fft_doc = fft_doc[:fft_doc.index("\n\n")]
fft_named = {n for n in re.findall(r"`([a-z0-9.-]+)`", fft_doc) if n in registered}
fft_labelled = {a["name"] for a in registry if a["status_note"].endswith(FFT_LABEL)}
check("the FFT-labelled entries are those docs/analyses.md names", fft_labelled and fft_named == fft_labelled,
      {"docs": sorted(fft_named), "program": sorted(fft_labelled)})
check("docs/analyses.md quotes the FFT label", FFT_LABEL in " ".join(fft_doc.split()), fft_doc[:300])
note_row = re.search(r"^\| `analyses\[\]\.status`[^\n]*", DOC, re.M).group(0)
check("the JSON field table's status_note row quotes the FFT label", FFT_LABEL in note_row, note_row[-400:])
pld_doc = open(os.path.join(SOURCE, "docs", "pld.md"), encoding="utf-8").read()
section4 = pld_doc[pld_doc.index("## 4."):pld_doc.index("## 5.")]
check("docs/pld.md section 4 says what is assumed and shows the margin table",
      "**The assumption.**" in section4 and "| n |" in section4 and FFT_LABEL in " ".join(section4.split()),
      section4[:300])
cor1 = dict(rows).get("chourasia-cor1", "")
check("chourasia-cor1's row says why a point start is covered too", "point start" in table.split("chourasia-cor1")[1]
      .split("\n")[0], cor1)
finish()
