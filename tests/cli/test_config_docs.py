#!/usr/bin/env python3
"""docs/config.md's key tables and limits against the program's own lists (issue: docs that match
the program).

Keys: a configuration with an unknown key in a table is refused, and the refusal lists the keys the
program allows there ("allowed here: ..."; io/toml_section.hpp, allow_only). For every table, and
for every kind of the tables whose keys depend on a kind ([algorithm], its phases, [lsi],
[initial], [[events]]), that list must equal the keys docs/config.md gives; an unknown kind's
refusal lists the kinds ("must be one of ..."), which must equal the documented kinds.

Limits: every constant of models/size_limits.hpp must be the value of its row in docs/config.md's
"Limits" tables, and a value one beyond each documented limit is refused (exit 2) with a message
naming the key and the limit.

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


def refusal(config, *sets, command="solve", extra=(), appended=""):
    """The program's answer to CONFIG (with APPENDED text) and --set SETS: (exit code, stderr's last line)."""
    path = os.path.join(SOURCE, "examples", config)
    if appended:
        with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
            f.write(open(path, encoding="utf-8").read() + "\n" + appended + "\n")
        path = f.name
    r = subprocess.run([RDPDYN, command, path, *extra, *[a for kv in sets for a in ("--set", kv)]],
                       capture_output=True, text=True)
    if appended:
        os.unlink(path)
    lines = r.stderr.strip().splitlines()
    return r.returncode, lines[-1] if lines else ""


def program_keys(config, *sets):
    code, line = refusal(config, *sets)
    m = re.search(r"allowed here: (.*)$", line)
    return code, set(m.group(1).split(", ")) if m else set(), line


def program_kinds(config, key_value):
    code, line = refusal(config, key_value)
    return code, set(re.findall(r'"([^"]+)"', line.split("must be one of", 1)[-1])), line


def section_text(heading):
    """From HEADING to the next heading of any level."""
    start = DOC.index(heading)
    m = re.compile(r"^#{2,4} ", re.M).search(DOC, start + len(heading))
    return DOC[start:m.start() if m else len(DOC)]


def ticked(text):
    return set(re.findall(r"`([A-Za-z_0-9]+)`", text))


def kind_rows(heading):
    """{kind: second column} of the first table with a `kind` column after HEADING."""
    rows = {}
    for line in section_text(heading).splitlines():
        m = re.match(r"\| `([a-z-]+)` \| ([^|]*)\|", line)
        if m and m.group(1) != "kind":  # not the header row
            rows[m.group(1)] = m.group(2)
    return rows


def same(name, docs, program, line):
    check(name, docs == program,
          {"only in the docs": sorted(docs - program), "only in the program": sorted(program - docs), "program": line})


# [algorithm] by kind: the "Allowed keys:" line of each kind's section (noisy-sgd: noisy-gd's,
# drop_last and the keys of its own table).
def allowed_line(heading):
    listed = re.search(r"Allowed keys: `([^`]*)`", section_text(heading)).group(1)
    return {k.strip() for k in listed.split(",")}


algorithm_docs = {
    "noisy-gd": allowed_line('### `kind = "noisy-gd"`'),
    "langevin": allowed_line('### `kind = "langevin"`'),
    "pdi": allowed_line('### `kind = "pdi"`'),
}
sgd = section_text('### `kind = "noisy-sgd"`')
algorithm_docs["noisy-sgd"] = algorithm_docs["noisy-gd"] | {"drop_last"} | {
    m.group(1) for m in re.finditer(r"^\| `([a-z_]+)` \|", sgd, re.M)}
for kind, config in [("noisy-gd", "figure1_lambda1.toml"), ("noisy-sgd", "ye_shokri_fmnist.toml"),
                     ("langevin", "schedule_langevin.toml"), ("pdi", "pdi_decaying_sensitivity.toml")]:
    code, program, line = program_keys(config, "algorithm.zzz_unknown=1")
    check(f"[algorithm] kind {kind}: an unknown key exits 2 naming the allowed ones", code == 2 and program, line)
    same(f"[algorithm] kind {kind}: docs/config.md's keys are the program's", algorithm_docs[kind], program, line)
kind_row = re.search(r"^\| `kind` \|[^\n]*", section_text("## `[algorithm]`"), re.M).group(0)
code, program, line = program_kinds("figure1_lambda1.toml", 'algorithm.kind="zzz"')
same("[algorithm] kinds: docs/config.md's are the program's", set(re.findall(r'`"([a-z-]+)"`', kind_row)), program, line)

# Phases: noisy GD's table, and the keys a Poisson run's phases take ("Rates that change along the run").
code, program, line = program_keys("figure1_lambda1.toml", "algorithm.schedule=[{steps=1,zzz_unknown=1}]")
phases = section_text("#### `[[algorithm.schedule]]` phases")
same("[[algorithm.schedule]] phases: docs/config.md's table is the program's keys",
     {m.group(1) for m in re.finditer(r"^\| `([a-z_]+)` \|", phases, re.M)}, program, line)
code, program, line = program_keys("dpsgd_accounting.toml", "algorithm.schedule=[{steps=1,zzz_unknown=1}]")
poisson = re.search(r"Each phase has its (.*?)what a phase leaves out", DOC, re.S).group(1)
same("Poisson phases: docs/config.md's keys are the program's", ticked(poisson), program, line)

# [lsi] by kind: the "Keys" column (kind names mentioned there, "as for `recursion`", are not keys).
lsi_rows = kind_rows("## `[lsi]`")
lsi_kinds_sentence = re.search(r"`kind` \(string, \*\*required\*\*\): one of `([^`]*)`", DOC).group(1)
code, program, line = program_kinds("figure1_lambda1.toml", 'lsi.kind="zzz"')
same("[lsi] kinds: the table's rows are the program's kinds", set(lsi_rows), program, line)
same("[lsi] kinds: the opening sentence lists the program's kinds",
     {k.strip() for k in lsi_kinds_sentence.split(",")}, program, line)
lsi_examples = {"constant": "c=1", "function": 'c="1"', "recursion": "lambda=1,beta=2",
                "strongly-convex": "lambda=1,beta=4", "squared-loss": "", "bounded-domain": "beta=1",
                "exact-quadratic": ""}
for kind, keys in lsi_examples.items():
    inline = ",".join(x for x in (f'kind="{kind}"', keys, "zzz_unknown=1") if x)
    code, program, line = program_keys("figure1_lambda1.toml", f"lsi={{{inline}}}")
    docs = (ticked(lsi_rows.get(kind, "")) - set(lsi_rows)) | {"kind"}
    same(f"[lsi] kind {kind}: docs/config.md's keys are the program's", docs, program, line)

# [initial] and [[events]] by kind (every event also has after_step; a pdi run's, time instead).
initial_rows = kind_rows("## `[initial]`")
code, program, line = program_kinds("figure1_lambda1.toml", 'initial={kind="zzz"}')
same("[initial] kinds: the table's rows are the program's", set(initial_rows), program, line)
initial_examples = {"zero": "", "linear": "slope=1", "power": "scale=1,exponent=2",
                    "table": "alpha=[40],R=[1]", "function": 'R="alpha"'}
for kind, keys in initial_examples.items():
    inline = ",".join(x for x in (f'kind="{kind}"', keys, "zzz_unknown=1") if x)
    code, program, line = program_keys("figure1_lambda1.toml", f"initial={{{inline}}}")
    docs = ticked(initial_rows.get(kind, "")) | {"kind"}
    same(f"[initial] kind {kind}: docs/config.md's keys are the program's", docs, program, line)
event_rows = kind_rows("## `[[events]]`")
code, program, line = program_kinds("figure1_lambda1.toml", 'events=[{kind="zzz",after_step=1}]')
same("[[events]] kinds: the table's rows are the program's", set(event_rows), program, line)
event_examples = {"gaussian-release": "sensitivity=1,noise_std=1", "lipschitz": "lipschitz=1", "lsi-restart": "c=1"}
for kind, keys in event_examples.items():
    code, program, line = program_keys("figure1_lambda1.toml",
                                       f'events=[{{kind="{kind}",after_step=1,{keys},zzz_unknown=1}}]')
    same(f"[[events]] kind {kind}: docs/config.md's keys (and after_step) are the program's",
         ticked(event_rows.get(kind, "")) | {"kind", "after_step"}, program, line)
code, program, line = program_keys("pdi_decaying_sensitivity.toml",
                                   'events=[{kind="lipschitz",time=1,lipschitz=1,zzz_unknown=1}]')
check("[[events]] of a pdi run: time instead of after_step", program == {"kind", "lipschitz", "time"}, line)

# [quadratic] and [sweep] (its axes and ranges).
code, program, line = program_keys("quadratic_anisotropic.toml", "quadratic.zzz_unknown=1")
quadratic = section_text("### `loss = \"quadratic\"` and the table `[quadratic]`")
same("[quadratic]: docs/config.md's table is the program's keys",
     {m.group(1) for m in re.finditer(r"^\| `([a-z_]+)` \|", quadratic, re.M)}, program, line)
sweep_rows = {m.group(1) for m in re.finditer(r"^\| `([a-z_.]+)` \|", section_text("## `[sweep]`"), re.M)}
code, line = refusal("sweep_surface.toml", "sweep.zzz_unknown=1", command="sweep")
m = re.search(r"allowed here: (.*)$", line)
same("[sweep]: docs/config.md's table is the program's keys", {k for k in sweep_rows if "." not in k},
     set(m.group(1).split(", ")) if m else set(), line)
code, line = refusal("sweep_surface.toml", 'sweep.axis[0]={key="algorithm.sigma",values=[0.1],zzz_unknown=1}',
                     command="sweep")
m = re.search(r"allowed here: (.*)$", line)
same("[[sweep.axis]]: docs/config.md's axis.* rows are the program's keys",
     {k.split(".", 1)[1] for k in sweep_rows if k.startswith("axis.")}, set(m.group(1).split(", ")) if m else set(), line)

# ---- Limits: models/size_limits.hpp's constants against the rows of the two Limits tables.
SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")


def documented_limit(cell):
    """The number a limit cell starts with: 2^k (as 2ᵏ), 2 · 2ᵏ, N MiB or a plain integer."""
    cell = cell.replace("at most ", "").strip()
    m = re.match(r"(\d+) · 2([⁰¹²³⁴⁵⁶⁷⁸⁹]+)", cell)
    if m:
        return int(m.group(1)) * 2 ** int(m.group(2).translate(SUPERSCRIPT))
    m = re.match(r"2([⁰¹²³⁴⁵⁶⁷⁸⁹]+)", cell)
    if m:
        return 2 ** int(m.group(1).translate(SUPERSCRIPT))
    m = re.match(r"(\d+) MiB", cell)
    if m:
        return int(m.group(1)) << 20
    m = re.match(r"(\d+)", cell)
    return int(m.group(1)) if m else None


def limit_rows(heading):
    rows = []
    for line in section_text(heading).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) >= 3 and not cells[0].startswith(("Key", "Limit", "---")):
            rows.append((cells[0], documented_limit(cells[1])))
    return rows


limits_rows = limit_rows("## Limits\n") + limit_rows("## Limits of the configuration text")


def row_limit(label):
    """The limit of the rows whose first cell contains LABEL (two tables may both state it)."""
    found = {v for k, v in limits_rows if label in k}
    return found.pop() if len(found) == 1 else ("missing" if not found else f"rows disagree: {found}")


header = open(os.path.join(SOURCE, "models", "size_limits.hpp"), encoding="utf-8").read()
constants = {}
for name, expr in re.findall(r"inline constexpr [\w:]+ (kMax\w+) = ([^;]+);", header):
    expr = re.sub(r"std::int64_t\{(\d+)\}", r"\1", expr)
    constants[name] = expr
values = {}
for name, expr in constants.items():  # evaluated in order: a constant may name an earlier one
    values[name] = eval(expr, {}, dict(values))  # noqa: S307 (the project's own header)
row_of = {
    "kMaxOrders": "`orders.count`", "kMaxSteps": "`algorithm.steps`", "kMaxPhases": "`[[algorithm.schedule]]` phases",
    "kMaxRecordsPerUser": "`domain.records_per_user`", "kMaxEvents": "`[[events]]`",
    "kMaxArrayEntries": "entries of one array", "kMaxArrayParseWork": "entries of one array",
    "kMaxRecordSteps": "`output.record_steps`", "kMaxTableEntries": "`initial.alpha`", "kMaxGridCells": "`grid.cells`",
    "kMaxGammaSamples": "`grid.gamma_samples`", "kMaxQuadraticDimension": "`quadratic.hessian`",
    "kMaxDatasetSize": "`algorithm.n`", "kMaxSweepValues": "`sweep.axis.range.count`", "kMaxConfigBytes": "the configuration file",
}
check("every limit of models/size_limits.hpp has its row in docs/config.md", set(values) == set(row_of),
      {"unmapped": sorted(set(values) - set(row_of)), "gone": sorted(set(row_of) - set(values))})
for name, value in values.items():
    if name == "kMaxArrayParseWork":  # the second clause of the array row: "summed ... at most 2 · 2³²"
        check("kMaxArrayParseWork: docs/config.md's text limit", value == 2 * 2 ** 32 and "at most 2 · 2³²" in DOC, value)
        continue
    doc = row_limit(row_of.get(name, "?"))
    check(f"{name} = {value:g}: docs/config.md's Limits row {row_of.get(name)!r} says the same", doc == value,
          {"docs": doc, "program": value})

# Every limit stated in a key table beside "([Limits](#limits))" is one of the program's (the
# [output] table said record_steps "at most 2^24 entries" where the program has 2^16).
program_limits = {v for v in values.values()}
for line in DOC.splitlines():
    if "([Limits](#limits))" not in line or not (line.startswith("| `") or "2" in line.split("([Limits]")[0][-12:]):
        continue
    stated = [2 ** int(p.translate(SUPERSCRIPT)) for p in re.findall(r"2([⁰¹²³⁴⁵⁶⁷⁸⁹]+)", line)]
    stated += [int(n) for n in re.findall(r"d ≤ (\d+)", line)]
    check(f"a limit stated in docs/config.md is the program's: {line[:60]!r}",
          stated and all(v in program_limits for v in stated), {"stated": stated})

# A value one beyond each documented limit is refused, naming the key and the limit.
big = str(values["kMaxSteps"] + 1)
L = values  # each probe: key, configuration, --set values, extra arguments, the limit it breaks
probes = [
    ("orders.count", "figure1_lambda1.toml", [f"orders={{min=1.5,max=64,count={L['kMaxOrders'] + 1}}}"], (), L["kMaxOrders"]),
    ("algorithm.steps", "figure1_lambda1.toml", [f"algorithm.steps={big}"], (), L["kMaxSteps"]),
    ("algorithm.schedule[0].steps", "figure1_lambda1.toml", [f"algorithm.schedule=[{{steps={big}}}]"], (), L["kMaxSteps"]),
    ("algorithm.intervals", "schedule_langevin.toml", [f"algorithm.intervals={big}"], (), L["kMaxSteps"]),
    ("--max-steps", "dpsgd_accounting.toml", [], ("--epsilon", "2", "--delta", "1e-5", "--for", "steps", "--max-steps", big),
     L["kMaxSteps"]),
    ("algorithm.steps", "figure1_lambda1.toml",  # a schedule by expression: one phase a step, at most kMaxPhases
     [f"algorithm.steps={L['kMaxPhases'] + 1}", 'algorithm.eta="0.02 * (1 + 0 * k)"'], (), L["kMaxPhases"]),
    ("domain.records_per_user", "dpsgd_accounting.toml", [f"domain.records_per_user={L['kMaxRecordsPerUser'] + 1}"], (),
     L["kMaxRecordsPerUser"]),
    ("grid.cells", "figure1_lambda1.toml", [f"grid.cells={L['kMaxGridCells'] + 1}"], (), L["kMaxGridCells"]),
    ("grid.gamma_samples", "figure1_lambda1.toml", [f"grid.gamma_samples={L['kMaxGammaSamples'] + 1}"], (),
     L["kMaxGammaSamples"]),
    ("algorithm.n", "figure1_lambda1.toml", [f"algorithm.n={int(L['kMaxDatasetSize']) + 2}"], (), int(L["kMaxDatasetSize"])),
]
for key, config, sets, extra, limit in probes:
    command = "calibrate" if key == "--max-steps" else "compare" if config == "dpsgd_accounting.toml" else "solve"
    code, line = refusal(config, *sets, command=command, extra=extra)
    check(f"{key} one beyond its limit: exit 2 naming the key and the limit {limit}",
          code == 2 and f"'{key}'" in line and str(limit) in line, line)
# Arrays too long for a command line: appended to the file. record_steps' limit is the text's own
# (an array of at most 2^16 entries), which refuses the file before its keys are read.
d = L["kMaxQuadraticDimension"] + 1
for key, sets, appended, named, limit in [
        ("output.record_steps", [], "[output]\nrecord_steps = [" + ",".join(["1"] * (L["kMaxRecordSteps"] + 1)) + "]",
         "(file)", L["kMaxArrayEntries"]),
        ("quadratic.hessian", ['algorithm.loss="quadratic"'], "[quadratic]\nhessian = [" +
         ",".join("[" + ",".join("1" if i == j else "0" for j in range(d)) + "]" for i in range(d)) + "]",
         "'quadratic.hessian'", L["kMaxQuadraticDimension"])]:
    code, line = refusal("figure1_lambda1.toml", *sets, appended=appended)
    check(f"{key} one beyond its limit: exit 2 naming {named} and the limit {limit}",
          code == 2 and named in line and str(limit) in line, line)
code, line = refusal("sweep_surface.toml",
                     f'sweep.axis[0]={{key="algorithm.sigma",range={{start=0.1,stop=1,count={values["kMaxSweepValues"] + 1}}}}}',
                     command="sweep")
check("sweep range count one beyond 2^28: exit 2 naming the limit", code == 2 and str(values["kMaxSweepValues"]) in line.replace(",", ""),
      line)
finish()
