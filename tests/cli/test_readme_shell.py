#!/usr/bin/env python3
"""The README's shell commands run as written, and the numbers its prose states are the program's
(issue: "The README's examples run as written in a test, and their commented values are compared
with the output"; the Python block is tests/python/test_readme.py, ctest python:readme).

Commands: every 4-space-indented line of README.md outside the ``` fences that starts like a
command (`./build/rdpdyn`, `rdpdyn`, `mpirun`, `PYTHONPATH=build/python`, `cmake`, `cd build &&
cpack`, `./scripts/`, `./build-example/`); any other indented line must be a comment continuation,
the PDI of the opening paragraph or the "Map of the code" block, so a new command with a new prefix
is not silently left out.
- Synopsis lines (placeholders in capitals: CONFIG, OUT.h5, FIG.png, E, D, NAME, ...): the
  subcommand exists (`rdpdyn help`), every option the line names (and its comment names, e.g.
  "(or --from-dp-event EVENT.json)", "also compare, calibrate") is one `rdpdyn help SUBCOMMAND`
  lists, and the line runs (exit 0, its -o files written) with real values substituted, shortest
  form (optional parts dropped) and longest form (every optional part, each alternative of an
  `a|b|c` in turn). mpirun and PETSc-option lines: options only.
- Concrete lines run as written from a temporary directory where `build` links to the build tree
  and examples/, docs/, python/, scripts/ to the source tree, and every -o file exists afterwards.
  Not run: the set-up (install-deps, cmake, ctest: must be the text .ci/run runs), installing
  (`cmake --install`, the library example built against the installed package, cpack/apt-get: the
  .deb's version must be `rdpdyn --version`'s); the figures command runs with its output directory
  replaced by a temporary one and must write the three PNGs the README shows from docs/figures/.

Numbers: each sentence of the prose that states a program output of an example is found by a
regular expression in README.md (a reworded sentence fails: update the expression), and each
number is compared with the output: |output - written| <= half a unit in the last digit written.
Not checked: timings, memory, test counts and fuzzing statistics (measurements of a machine), the
values of other libraries (dp_accounting, opacus, tensorflow/privacy) and papers, tolerances met by
the unit tests (1e-6, 1e-4, 1e-12, 6e-13, ...), the quadratic 1.9x/1.25x (a setting that is not an
example), the soundness campaign's 1 + 7.3e-15 (1000 random runs) and the Python block (python:readme).

usage: test_readme_shell.py RDPDYN SOURCE_DIR
"""
import atexit
import concurrent.futures
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, finish  # noqa: E402

RDPDYN, SOURCE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
BUILD = os.path.dirname(RDPDYN)
# The README and the guides it links, read as one text (the reference moved from the README into
# docs/; every command and number there is checked as the README's were). `loc` names a line.
DOC_FILES = ["README.md", "docs/guide-dpsgd.md", "docs/guide-research.md", "docs/guide-library.md",
             "docs/performance.md", "docs/development.md"]
_texts = [open(os.path.join(SOURCE, f), encoding="utf-8").read().rstrip("\n") + "\n" for f in DOC_FILES]
README = "".join(_texts)
_starts = []  # (first line in README, file)
_line = 1
for _f, _t in zip(DOC_FILES, _texts):
    _starts.append((_line, _f))
    _line += _t.count("\n")


def loc(line):
    """`file:line` of a line of the joined text."""
    first, name = max((s for s in _starts if s[0] <= line), key=lambda s: s[0])
    return f"{name}:{line - first + 1}"
FLAT = re.sub(r"\s+", " ", README)  # sentences wrap: match the prose on one line
CI_RUN = open(os.path.join(SOURCE, ".ci", "run"), encoding="utf-8").read()
HAS_PYTHON = os.path.isfile(os.path.join(BUILD, "python", "rdpdyn", "__init__.py"))
EX = os.path.join(SOURCE, "examples")
START = time.monotonic()

# ----------------------------------------------------------------------------------------------
# The README's indented lines and the commands among them.
# ----------------------------------------------------------------------------------------------
PREFIXES = ("./build/rdpdyn", "rdpdyn ", "rdpdyn,", "mpirun", "PYTHONPATH=build/python", "cmake --install",
            "cmake -S", "cd build && cpack", "./scripts/", "./build-example/")


def indented_lines():
    """(line number, text) of the lines indented by 4 spaces outside ``` fences, with the heading above."""
    out, fenced, heading = [], False, ""
    for i, line in enumerate(README.splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            heading = line
        elif not fenced and line.startswith("    ") and line.strip():
            out.append((i, line.strip(), heading))
    return out


def strip_comment(text):
    """The command without its trailing `# ...` comment, and the comment."""
    m = re.search(r"\s#\s", text)
    return (text[:m.start()].strip(), text[m.end():].strip()) if m else (text.strip(), "")


commands, unclassified = [], []
for number, text, heading in indented_lines():
    if text.startswith(PREFIXES):
        command, comment = strip_comment(text)
        commands.append({"line": number, "last": number, "text": command, "comment": comment})
    elif text.startswith("#") and commands and commands[-1]["last"] == number - 1:
        commands[-1]["comment"] += " " + text.lstrip("# ")  # a comment continuation line
        commands[-1]["last"] = number
    elif text.startswith("dR/dt <=") or heading.startswith("## Map of the code"):
        pass
    else:
        unclassified.append((number, text))
listing = "\n".join(f"  {loc(c['line'])}: {c['text']}" for c in commands)
check("README: every indented line is a command, a comment of one, the PDI or the map of the code",
      not unclassified, unclassified)
check("README: the shell commands were found (at least the Use block, set-up, install, plot, figures)",
      len(commands) >= 25, "\n" + listing)

PLACEHOLDER = re.compile(r"^[A-Z][A-Z_]*(\.[a-z0-9]+)?$")


def is_synopsis(cmd):
    words = cmd["text"].replace("[", " ").replace("]", " ").replace("|", " ").split()
    return cmd["text"].startswith(("rdpdyn", "mpirun")) and (
        "[" in cmd["text"] or "|" in cmd["text"] or any(PLACEHOLDER.match(w) for w in words))


synopses = [c for c in commands if is_synopsis(c)]
concrete = [c for c in commands if not is_synopsis(c)]

# ----------------------------------------------------------------------------------------------
# A temporary working directory like the source tree's root after the README's build.
# ----------------------------------------------------------------------------------------------
WORK = tempfile.mkdtemp(prefix="readme_shell_")
atexit.register(shutil.rmtree, WORK, True)
os.symlink(BUILD, os.path.join(WORK, "build"))
for name in ("examples", "docs", "python", "scripts"):
    os.symlink(os.path.join(SOURCE, name), os.path.join(WORK, name))
OUT = os.path.join(WORK, "out")
os.mkdir(OUT)

POOL = concurrent.futures.ThreadPoolExecutor(max_workers=2)


def submit(argv, shell=False, stdin=None):
    """Runs in the pool from WORK; the future gives (returncode, stdout, stderr, seconds)."""
    def run():
        t = time.monotonic()
        try:
            r = subprocess.run(argv, cwd=WORK, shell=shell, executable="/bin/bash" if shell else None,
                               input=stdin, capture_output=True, text=True, timeout=600)
            return r.returncode, r.stdout, r.stderr, time.monotonic() - t
        except subprocess.TimeoutExpired:
            return -1, "", "timed out after 600 s", time.monotonic() - t
    return POOL.submit(run)


# The heavy runs first, so the two workers share them: the Fashion-MNIST comparison as written and
# near pdi's best order (for the README's "R: 2.4412"), and the figures (which compare it again).
FMNIST_NEAR = [round(6.30 + 0.01 * k, 2) for k in range(33)]  # 6.30 ... 6.62
jobs = {
    "ye_shokri_fmnist": submit([RDPDYN, "compare", os.path.join(EX, "ye_shokri_fmnist.toml"), "--json"]),
    "ye_shokri_fmnist@6.46": submit([RDPDYN, "compare", os.path.join(EX, "ye_shokri_fmnist.toml"), "--json",
                                     "--set", "orders.values=[" + ", ".join(map(str, FMNIST_NEAR)) + "]"]),
}
FIGURES_OUT = os.path.join(OUT, "figures")  # stands for docs/figures, which exists
os.mkdir(FIGURES_OUT)
figures_cmds = [c for c in concrete if "rdpdyn.figures" in c["text"]]
check("README: the figures command is there", len(figures_cmds) == 1, "\n" + listing)
if figures_cmds and HAS_PYTHON:
    text = figures_cmds[0]["text"]
    check("figures command: its output directory is docs/figures", text.endswith(" docs/figures"), text)
    jobs["figures"] = submit(text[:-len("docs/figures")] + FIGURES_OUT, shell=True)
for name in ("dpsgd_accounting", "noisysgd_window", "altschuler_talwar_plateau", "shuffled_dpsgd"):
    jobs[name] = submit([RDPDYN, "compare", os.path.join(EX, name + ".toml"), "--json"])
jobs["figure2_tight@1e-5"] = submit([RDPDYN, "compare", os.path.join(EX, "figure2_tight.toml"), "--json",
                                     "--set", "report.delta=1e-5"])
jobs["dpsgd_cifar10"] = submit([RDPDYN, "compare", os.path.join(EX, "dpsgd_cifar10.toml"), "--json"])
jobs["dpsgd_cifar10 calibrate"] = submit([RDPDYN, "calibrate", os.path.join(EX, "dpsgd_cifar10.toml"), "--epsilon", "2",
                                          "--json"])
jobs["fd_convergence"] = submit([RDPDYN, "validate", "--convergence", os.path.join(EX, "fd_convergence.toml"),
                                 "--grids", "6"])
for label, extra in (("calibrate best", []), ("calibrate composition-sgm", ["--analysis", "composition-sgm"])):
    jobs[label] = submit([RDPDYN, "calibrate", os.path.join(EX, "dpsgd_accounting.toml"), "--epsilon", "2",
                          "--delta", "1e-5", "--for", "noise_multiplier", "--json"] + extra)
PLD_GRIDS = {}  # README's row label -> pld_grid (None: the default refinement)
for row in re.findall(r"^\| (\*\*)?([^|]*?)(\*\*)? \| (\*\*)?([\d.]+)", README, re.M):
    label = row[1]
    m = re.fullmatch(r"(?:(\d+) x )?2\^-(\d+)(?: \(.*\))?", label)
    if m:
        PLD_GRIDS[label] = (int(m.group(1) or 1)) * 2.0 ** -int(m.group(2))
    elif label.startswith("default `pld_accuracy`"):
        PLD_GRIDS[label] = None
for label, grid in PLD_GRIDS.items():
    if grid is not None:
        jobs["pld " + label] = submit([RDPDYN, "compare", os.path.join(EX, "dpsgd_accounting.toml"), "--json",
                                       "--set", f"analysis.pld_grid={grid!r}"])

# ----------------------------------------------------------------------------------------------
# 1a. Synopsis lines: subcommands and options against the program's help, then runs.
# ----------------------------------------------------------------------------------------------
top_help = subprocess.run([RDPDYN, "help"], capture_output=True, text=True).stdout


def help_options(text):
    """The options a CLI11 help lists: {'-o', '--output', '--json', ...}, and {'--for': {choices}}."""
    options, choices = set(), {}
    section = False
    for line in text.splitlines():
        if line.startswith("Options:"):
            section = True
        elif section and re.match(r"^\S", line):
            section = False
        elif section:
            m = re.match(r"^\s+((?:-[\w-]+,)*-{1,2}[\w-]+)(.*)", line)
            if m:
                names = m.group(1).split(",")
                options.update(names)
                c = re.search(r"\{([^}]*)\}", m.group(2))
                if c:
                    for n in names:
                        choices[n] = set(c.group(1).split(","))
    return options, choices


SUBCOMMANDS = set(re.findall(r"^  ([a-z][\w-]*)\s{2,}", top_help.split("Subcommands:")[-1], re.M))
check("rdpdyn help lists the subcommands", len(SUBCOMMANDS) >= 8, top_help)
for sub in sorted(SUBCOMMANDS):
    check(f"README 'Use': subcommand `{sub}` of `rdpdyn help` has a synopsis line",
          any(re.search(rf"\brdpdyn {re.escape(sub)}\b", c["text"]) for c in synopses), "\n" + listing)
HELP = {None: help_options(top_help)}
for sub in SUBCOMMANDS:
    HELP[sub] = help_options(subprocess.run([RDPDYN, "help", sub], capture_output=True, text=True).stdout)


def tokens(text):
    """A command as nested lists: [ ... ] is an optional group (a list), words are strings."""
    stack = [[]]
    for word in re.findall(r"\[|\]|[^\s\[\]]+", text):
        if word == "[":
            stack.append([])
        elif word == "]":
            group = stack.pop()
            stack[-1].append(group)
        else:
            stack[-1].append(word)
    return stack[0]


def flatten(tree, optional):
    out = []
    for t in tree:
        if isinstance(t, list):
            if optional:
                out += flatten(t, optional)
        else:
            out.append(t)
    return out


def options_named(words):
    return [w for w in words if re.match(r"^-{1,2}[a-z][\w-]*$", w)]


CONFIG_FOR = {"solve": "figure1_lambda1.toml", "validate": "figure1_lambda1.toml", "compare": "figure1_lambda1.toml",
              "export-dp-event": "figure1_lambda1.toml", "sweep": "nonconvex_bounded_sweep.toml"}
HISTORY = os.path.join(OUT, "history.json")
with open(HISTORY, "w") as f:
    json.dump([[1.1, 0.01, 1000]], f)  # an opacus accountant's history: [noise_multiplier, sample_rate, steps]
EVENT = os.path.join(OUT, "event.json")
with open(EVENT, "w") as f:
    f.write(subprocess.run([RDPDYN, "export-dp-event", os.path.join(EX, "dpsgd_accounting.toml")],
                           capture_output=True, text=True).stdout)
PLOT_INPUT = os.path.join(OUT, "plot_input.h5")
r = subprocess.run([RDPDYN, "solve", os.path.join(EX, "figure1_lambda1.toml"), "-o", PLOT_INPUT],
                   capture_output=True, text=True)
check("a solve output to plot", r.returncode == 0 and os.path.exists(PLOT_INPUT), r.stderr)
counter = [0]


def instance(words, sub, variant):
    """The words with alternatives chosen (the variant-th of each `a|b|c`) and placeholders replaced."""
    words = list(words)
    for i, w in enumerate(words):
        if "|" in w:
            alts = w.split("|")
            pick = alts[variant % len(alts)]
            words[i] = os.path.splitext(alts[0])[0] + pick if pick.startswith(".") else pick
    target = words[words.index("--for") + 1] if "--for" in words else None
    config = "dpsgd_accounting.toml" if sub == "calibrate" and target in ("noise_multiplier", "steps") else \
        "fd_convergence.toml" if "--convergence" in words else CONFIG_FOR.get(sub, "figure1_lambda1.toml")
    out = []
    for i, w in enumerate(words):
        counter[0] += 1
        stem, ext = os.path.splitext(w)
        if not PLACEHOLDER.match(w):
            out.append(w)
        elif stem == "CONFIG":
            out.append(os.path.join(EX, config))
        elif stem == "OUT":
            out.append(PLOT_INPUT if sub == "plot" and words[i - 1] == "plot" else
                       os.path.join(OUT, f"out{counter[0]}{ext}"))
        elif stem == "FIG":
            out.append(os.path.join(OUT, f"fig{counter[0]}{ext}"))
        elif stem == "HISTORY":
            out.append(HISTORY)
        elif stem == "EVENT":
            out.append(EVENT)
        else:
            value = {"E": "2", "D": "1e-5", "N": "2", "T": "1e-6", "COMMAND": "solve",
                     "NAME": "composition-sgm" if config == "dpsgd_accounting.toml" else "chourasia-cor1"}.get(w)
            check(f"synopsis: placeholder {w} has a value to substitute", value is not None, words)
            out.append(value or w)
    return out


synopsis_runs = []  # (README line, argv, -o files)
for cmd in synopses:
    text, line = cmd["text"], cmd["line"]
    if text.startswith("rdpdyn,"):
        # "rdpdyn, rdpdyn -h | --help | help [COMMAND] | --version": each form runs and is the help
        forms = ["rdpdyn"] + ["rdpdyn " + f.strip() for f in text.split(",", 1)[1].strip()[len("rdpdyn "):].split("|")]
        for form in forms:
            words = flatten(tokens(form), True)
            for o in options_named(words):
                check(f"{loc(line)} `{form}`: the program has option {o}", o in HELP[None][0], sorted(HELP[None][0]))
            for optional in (False, True):
                argv = [RDPDYN] + instance(flatten(tokens(form), optional), None, 0)[1:]
                synopsis_runs.append((line, argv, []))
        continue
    words = flatten(tokens(text), True)
    if words[0] == "mpirun":
        words = words[words.index("rdpdyn"):]
    if "--" in words:
        words = words[:words.index("--")]  # PETSc's options are PETSc's
    sub = words[1]
    check(f"{loc(line)} `{text}`: `{sub}` is a subcommand of `rdpdyn help`", sub in SUBCOMMANDS, sorted(SUBCOMMANDS))
    allowed, choices = HELP.get(sub, (set(), {}))
    named = options_named(words) + re.findall(r"\(or (--[\w-]+) ", cmd["comment"])
    named += [o for o in re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", cmd["comment"]) if o not in named]
    for o in named:
        check(f"{loc(line)} `{text}`: `rdpdyn help {sub}` lists {o}", o in allowed, sorted(allowed))
    for i, w in enumerate(words[:-1]):
        if w in choices and "|" in words[i + 1]:
            check(f"{loc(line)} `{text}`: the values of {w} are the program's", set(words[i + 1].split("|")) ==
                  choices[w], (words[i + 1], choices[w]))
    also = re.search(r"also ([a-z-]+(?:, [a-z-]+)*)\)", cmd["comment"])
    for other in (also.group(1).split(", ") if also else []):
        for o in options_named(words):
            check(f"{loc(line)} comment 'also {other}': `rdpdyn help {other}` lists {o}",
                  o in HELP.get(other, (set(),))[0], sorted(HELP.get(other, (set(),))[0]))
    if cmd["text"].startswith("mpirun") or " -- " in cmd["text"]:
        continue  # options only: MPI and PETSc lines are tested by mpi2:* and cli:end_to_end
    if sub == "plot" and not HAS_PYTHON:
        print(f"skipped {loc(line)} (built without the Python module)")
        continue
    alt_count = max([len(w.split("|")) for w in words] + [1])
    # (words, which alternative of each a|b|c): the shortest form, then the longest with each alternative
    forms = [(flatten(tokens(text), False), 0)] + [(flatten(tokens(text), True), v) for v in range(alt_count)]
    if "(or --from-dp-event EVENT.json)" in cmd["comment"]:
        forms.append((["rdpdyn", "compare", "--from-dp-event", "EVENT.json"], 0))
    seen = set()
    for form, variant in forms:
        argv = [RDPDYN] + instance(form, sub, variant)[1:]
        key = tuple(re.sub(r"(out|fig)\d+", r"\1", a) for a in argv)
        if key not in seen:
            seen.add(key)
            synopsis_runs.append((line, argv, [argv[k + 1] for k, a in enumerate(argv[:-1]) if a == "-o"]))

unique = {}
for line, argv, outputs in synopsis_runs:
    unique.setdefault(tuple(argv), (line, argv, outputs))  # "rdpdyn -h" is both forms of its group
synopsis_runs = list(unique.values())
synopsis_futures = [(line, argv, outputs, submit(argv)) for line, argv, outputs in synopsis_runs]

# ----------------------------------------------------------------------------------------------
# 1b. Concrete lines: run as written, but for set-up and installing.
# ----------------------------------------------------------------------------------------------
SETUP = ("./scripts/install-deps.sh", "cmake -S . -B build ", "cmake --build build", "ctest --test-dir build ")
INSTALL = ("cmake --install", "cmake -S examples/library", "cmake --build build-example", "./build-example/",
           "cd build", "cpack", "apt-get")
concrete_futures = []
version = subprocess.run([RDPDYN, "--version"], capture_output=True, text=True).stdout.split()
for cmd in concrete:
    text, line = cmd["text"], cmd["line"]
    segments = [s.strip() for s in text.split("&&")]
    if any(s.startswith(INSTALL) for s in segments):
        # Installing or packaging: install:library_example and install:deb run these.
        if text.startswith("cmake -S examples/library"):
            lib = os.path.join(SOURCE, "examples", "library", "CMakeLists.txt")
            check(f"{loc(line)}: examples/library builds account_training (run on the next line)",
                  os.path.exists(lib) and "account_training" in open(lib).read(), lib)
        deb = re.search(r"rdpdyn_([\d.]+)_amd64\.deb", text)
        if deb:
            check(f"{loc(line)}: the .deb's version {deb.group(1)} is `rdpdyn --version`'s",
                  version[-1:] == [deb.group(1)], version)
        continue
    setup = [s for s in segments if s.startswith(SETUP)]
    if setup:
        check(f"{loc(line)}: the set-up `{' && '.join(setup)}` is what .ci/run runs",
              " && ".join(setup) in CI_RUN, CI_RUN)
    rest = [s for s in segments if not s.startswith(SETUP)]
    if not rest:
        continue
    if "rdpdyn.figures" in text:
        continue  # submitted above, into a temporary directory
    if text.startswith("PYTHONPATH=build/python") or " plot " in text:
        if not HAS_PYTHON:
            print(f"skipped {loc(line)} (built without the Python module)")
            continue
    command = " && ".join(re.sub(r"^rdpdyn ", RDPDYN + " ", s) for s in rest)
    stdin = "import rdpdyn\nprint(rdpdyn.__file__)\n" if command.startswith("PYTHONPATH=build/python") \
        and command.endswith("python3") else None
    outputs = re.findall(r"(?<!\S)-o (\S+)", command)
    concrete_futures.append((line, command, outputs, stdin, submit(command, shell=True, stdin=stdin)))

# ----------------------------------------------------------------------------------------------
# Results of the runs.
# ----------------------------------------------------------------------------------------------
for line, argv, outputs, fut in synopsis_futures:
    code, out, err, secs = fut.result()
    shown = " ".join(["rdpdyn"] + [os.path.relpath(a, SOURCE) if a.startswith(SOURCE) else
                                   os.path.relpath(a, WORK) if a.startswith(WORK) else a for a in argv[1:]])
    check(f"{loc(line)} runs as `{shown}` (exit 0)", code == 0, (code, err[-600:]))
    for o in outputs:
        check(f"{loc(line)} `{shown}` writes its -o file", os.path.exists(o), o)
    if "--version" in argv:
        check(f"{loc(line)} `{shown}` prints the version", out.startswith("rdpdyn "), out)
    elif len(argv) == 1 or "-h" in argv or "--help" in argv or "help" in argv:
        check(f"{loc(line)} `{shown}` prints the help", "Usage: rdpdyn" in out, out[:300])

for line, command, outputs, stdin, fut in concrete_futures:
    code, out, err, secs = fut.result()
    check(f"{loc(line)} runs as written: `{command.replace(RDPDYN, 'rdpdyn')}` (exit 0)", code == 0,
          (code, err[-600:]))
    for o in outputs:
        check(f"{loc(line)} writes {o}", os.path.exists(os.path.join(WORK, o)), sorted(os.listdir(WORK)))
    if stdin:
        check(f"{loc(line)}: the interpreter imports rdpdyn from build/python",
              os.path.realpath(out.strip()).startswith(os.path.realpath(os.path.join(BUILD, "python"))), out + err)

shown_pngs = re.findall(r"!\[[^\]]*\]\((?:docs/)?figures/([\w.-]+\.png)\)", "".join(_texts[1:]))
check("README 'The papers' figures': the three pictures are shown", len(shown_pngs) == 3, shown_pngs)
for png in shown_pngs:
    check(f"README shows docs/figures/{png}: it exists", os.path.exists(os.path.join(SOURCE, "docs", "figures", png)))
if "figures" in jobs:
    code, out, err, secs = jobs["figures"].result()
    check("README 'The papers' figures': the command runs (output directory replaced by a temporary one)",
          code == 0, (code, err[-600:]))
    written = sorted(f for f in os.listdir(FIGURES_OUT) if f.endswith(".png")) if os.path.isdir(FIGURES_OUT) else []
    check("README 'The papers' figures': it writes the three PNGs the README shows",
          written == sorted(shown_pngs), (written, shown_pngs))
    check("README 'The papers' figures': the PNGs are pictures",
          all(open(os.path.join(FIGURES_OUT, f), "rb").read(8) == b"\x89PNG\r\n\x1a\n" for f in written))
elif not HAS_PYTHON:
    print("skipped the figures command (built without the Python module)")

# ----------------------------------------------------------------------------------------------
# 2. The prose's numbers against the program's output.
# ----------------------------------------------------------------------------------------------


def agrees(written, value, side=None):
    """written is value to its digits ('2.04', '0.00400', '1.9e-13', '0'): rounded up (side "up": an
    upper bound, which must still hold as written), down (a lower bound), or to nearest (None)."""
    if value is None or not isinstance(value, (int, float)) or math.isnan(value):
        return False
    mantissa, _, exponent = written.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    unit = 10.0 ** (int(exponent or 0) - decimals)
    w, slack = float(written), 1e-9 * unit
    if side == "up":
        return value - slack <= w <= value + unit + slack
    if side == "down":
        return value - unit - slack <= w <= value + slack
    return abs(value - w) <= 0.5 * unit + slack


def sentence(pattern, where):
    """The groups of the README's sentence matching pattern (on the text with lines joined)."""
    m = re.search(pattern, FLAT)
    check(f"README {where}: the sentence /{pattern}/ is there", m is not None, "reworded? update this test")
    return m.groups() if m else None


_parsed = {}


def result_json(name):
    """The JSON a job printed (checked once: exit 0)."""
    if name not in _parsed:
        code, out, err, secs = jobs[name].result()
        check(f"`{name}` runs (exit 0)", code == 0, (code, err[-600:]))
        try:
            _parsed[name] = json.loads(out)
        except json.JSONDecodeError:
            _parsed[name] = {}
    return _parsed[name]


def analyses(obj):
    return {a["name"]: a for a in obj.get("analyses", [])}


def number(where, what, written, value):
    """A README number against the program's: a bound the README states must hold as written, so an
    upper bound (an epsilon, mu or R of an upper bound, a calibrated noise, an error) is checked
    rounded up, a lower bound rounded down, anything else (an order, a ratio) to nearest."""
    if "lower" in what:
        side = "down"
    elif "poisson-as-if" in what or "order" in what.replace("orders", "") and "epsilon" not in what:
        side = None
    elif any(w in what for w in ("epsilon", "mu", "'s R", "noise multiplier", "error", "margin", "excess")):
        side = "up"
    else:
        side = None
    check(f"README {where}: {what} is {written}" + (f" (rounded {side})" if side else ""),
          agrees(written, value, side), f"the program gives {value!r}")


def toml(name):
    with open(os.path.join(EX, name), "rb") as f:
        return tomllib.load(f)


# "Every analysis of a run" links list: composition-pld on Poisson-sampled DP-SGD.
dpsgd = result_json("dpsgd_accounting")
a = analyses(dpsgd)
where = "links list ('On Poisson-sampled DP-SGD it is within 0.02% ... the example: X against RDP's Y')"
g = sentence(r"On Poisson-sampled DP-SGD it is within [\d.]+% of dp_accounting's pessimistic PLD on \d+ settings "
             r"and `best` there \(the example: ([\d.]+) against RDP's ([\d.]+)\)", where)
if g:
    number(where, "examples/dpsgd_accounting.toml's composition-pld epsilon", g[0],
           a.get("composition-pld", {}).get("epsilon"))
    number(where, "its RDP accountant's (composition-sgm) epsilon", g[1], a.get("composition-sgm", {}).get("epsilon"))
    check(f"README {where}: composition-pld is `best` there", dpsgd.get("best", {}).get("name") == "composition-pld",
          dpsgd.get("best", {}).get("name"))

# The links list: noisysgd-window against composition.
window = result_json("noisysgd_window")
a = analyses(window)
where = "links list ('`examples/noisysgd_window.toml`, epsilon X against the composition's Y at 10^K steps')"
g = sentence(r"`examples/noisysgd_window\.toml`, epsilon ([\d.]+) against the composition's ([\d.]+) "
             r"at 10\^(\d+) steps", where)
if g:
    number(where, "noisysgd-window's epsilon", g[0], a.get("noisysgd-window", {}).get("epsilon"))
    number(where, "composition-pld's epsilon", g[1], a.get("composition-pld", {}).get("epsilon"))
    check(f"README {where}: the example has 10^{g[2]} steps", toml("noisysgd_window.toml")["algorithm"]["steps"] ==
          10 ** int(g[2]), toml("noisysgd_window.toml")["algorithm"])

# Ye & Shokri's Fashion-MNIST run: the figures section and the compare section.
fmnist = result_json("ye_shokri_fmnist")
a = analyses(fmnist)
where = "'The papers' figures' (Fashion-MNIST)"
g = sentence(r"`pdi`, averaged over the random partition, the best at ([\d.]+) .*? below Ye & Shokri's Thm 4\.2 at "
             r"([\d.]+) and Bok, Su & Altschuler's cyclic bound at ([\d.]+)\.", where)
if g:
    check(f"README {where}: pdi is best", fmnist.get("best", {}).get("name") == "pdi", fmnist.get("best"))
    number(where, "pdi's epsilon (best)", g[0], fmnist.get("best", {}).get("epsilon"))
    number(where, "ye-shokri-thm4.2's epsilon", g[1], a.get("ye-shokri-thm4.2", {}).get("epsilon"))
    number(where, "bok-su-altschuler-cyclic's epsilon", g[2], a.get("bok-su-altschuler-cyclic", {}).get("epsilon"))
where = "'Every analysis of a run' (Fashion-MNIST paragraph)"
g = sentence(r"\(`examples/ye_shokri_fmnist\.toml`: b = (\d+), lr ([\d.]+), noise multiplier ([\d.]+), (\d+) epochs\) "
             r"`ye-shokri-thm4\.2` gives epsilon = ([\d.]+) at delta = ([\de.-]+) \(order ([\d.]+); "
             r"their target \d+ with Mironov's conversion; ([\d.]+) with it at order (\d+);", where)
if g:
    cfg = toml("ye_shokri_fmnist.toml")["algorithm"]
    per_epoch = cfg["n"] // cfg["batch_size"]
    check(f"README {where}: the example's b, lr, noise multiplier and epochs",
          [cfg["batch_size"], cfg["eta"], cfg["noise_multiplier"], cfg["steps"] / per_epoch] ==
          [int(g[0]), float(g[1]), float(g[2]), int(g[3])], cfg)
    thm = a.get("ye-shokri-thm4.2", {})
    number(where, "ye-shokri-thm4.2's epsilon", g[4], thm.get("epsilon"))
    check(f"README {where}: delta is {g[5]}", fmnist.get("delta") == float(g[5]), fmnist.get("delta"))
    number(where, "ye-shokri-thm4.2's best order", g[6], thm.get("best_order"))
    order = float(g[8])
    orders = fmnist.get("orders", [])
    mironov = None
    if order in orders and thm.get("R"):
        mironov = thm["R"][orders.index(order)] + math.log(1 / float(g[5])) / (order - 1)
    number(where, f"Mironov's conversion of ye-shokri-thm4.2's R at order {g[8]} (R + ln(1/delta)/(alpha - 1))",
           g[7], mironov)
g = sentence(r"`pdi` gives ([\d.]+) there: .*? averaged by YS22 Lemma 4\.1 \(R: ([\d.]+)\)", where)
if g:
    number(where, "pdi's epsilon", g[0], a.get("pdi", {}).get("epsilon"))
    near = analyses(result_json("ye_shokri_fmnist@6.46")).get("pdi", {})
    # pdi's RDP curve converted (improved conversion) and minimised over orders 6.30 ... 6.62 by 0.01
    number(where, "the epsilon of pdi's R curve (its RDP conversion, minimised near order 6.46)", g[1],
           near.get("epsilon_recorded_orders"))
    check(f"README {where}: pdi's R curve is minimised inside the orders tried (6.30 ... 6.62)",
          FMNIST_NEAR[0] < (near.get("best_recorded_order") or 0) < FMNIST_NEAR[-1], near.get("best_recorded_order"))

# The Altschuler-Talwar plateau.
plateau = result_json("altschuler_talwar_plateau")
a = analyses(plateau)
where = "'Every analysis of a run' (the Altschuler–Talwar plateau)"
g = sentence(r"On the Altschuler–Talwar plateau example, \(B\.2\) stays at ([\d.]+) while composition grows to "
             r"([\d.]+); \(B\.2\) is disputed there \(b < n\), so `best` is `([\w-]+)` \(epsilon ([\d.]+)\)", where)
if g:
    b2 = a.get("altschuler-talwar-b2", {})
    number(where, "altschuler-talwar-b2's epsilon", g[0], b2.get("epsilon"))
    number(where, "composition-gaussian's epsilon", g[1], a.get("composition-gaussian", {}).get("epsilon"))
    cfg = toml("altschuler_talwar_plateau.toml")["algorithm"]
    check(f"README {where}: (B.2) is disputed and b < n",
          b2.get("status") == "disputed" and cfg["batch_size"] < cfg["n"], (b2.get("status"), cfg))
    check(f"README {where}: best is {g[2]}", plateau.get("best", {}).get("name") == g[2], plateau.get("best"))
    number(where, "best's epsilon", g[3], plateau.get("best", {}).get("epsilon"))

# figure2_tight at delta = 1e-5: the Gaussian-DP best.
tight = result_json("figure2_tight@1e-5")
a = analyses(tight)
where = "'Every analysis of a run' (figure2_tight at delta = 1e-5)"
g = sentence(r"On the squared loss `best` is `([\w-]+)`, whose mu equals the exact one: on "
             r"`examples/figure2_tight\.toml` at delta = 1e-5 it gives epsilon ([\d.]+) \(mu = ([\d.]+)\) where the "
             r"best Rényi route \(`pdi`, exact R\) gives ([\d.]+)\.", where)
if g:
    best = tight.get("best", {})
    check(f"README {where}: best is {g[0]}", best.get("name") == g[0], best)
    mu, exact_mu = a.get(g[0], {}).get("mu"), a.get("exact", {}).get("mu")
    check(f"README {where}: its mu equals the exact entry's (to 1e-12)",
          mu and exact_mu and abs(mu / exact_mu - 1) < 1e-12, (mu, exact_mu))
    number(where, "best's epsilon", g[1], best.get("epsilon"))
    number(where, "best's mu", g[2], best.get("mu"))
    number(where, "pdi's epsilon", g[3], a.get("pdi", {}).get("epsilon"))

# The Figure 2 setting at alpha = 10 after K = 1000 steps (the characteristics engine section).
where = "'What the characteristics engine computes' (gamma, the Figure 2 setting)"
g = sentence(r"In the Figure 2 setting at alpha = (\d+) after K = (\d+) steps it gives ([\d.]+) "
             r"\(the exact divergence\), against ([\d.]+) for C21 Cor 2 and ([\d.]+) for the stated lower bound "
             r"of Thm 3", where)
if g:
    orders, cfg = tight.get("orders", []), toml("figure2_tight.toml")
    k = orders.index(float(g[0])) if float(g[0]) in orders else None
    check(f"README {where}: figure2_tight.toml has order {g[0]} and K = {g[1]} steps",
          k is not None and cfg["algorithm"]["steps"] == int(g[1]), (orders, cfg["algorithm"]))

    def r_at(name):
        return a.get(name, {}).get("R", [None] * (k + 1))[k] if k is not None else None
    number(where, "pdi's R (optimal gamma, LSI recursion)", g[2], r_at("pdi"))
    number(where, "chourasia-thm3-exact's R", g[2], r_at("chourasia-thm3-exact"))
    number(where, "chourasia-cor2's R", g[3], r_at("chourasia-cor2"))
    number(where, "chourasia-thm3-lower's R", g[4], r_at("chourasia-thm3-lower"))
    where2 = "'The papers' figures' (C21 Figure 2)"
    g2 = sentence(r"lies on the exact divergence \(tight\): after convergence \(2 − η\)²/4 of Cor 2 \(([\d.]+) at "
                  r"η = ([\d.]+)\), twice the stated lower bound", where2)
    if g2:
        eta = cfg["algorithm"]["eta"]
        ratios = [p / c for p, c in zip(a.get("pdi", {}).get("R", []), a.get("chourasia-cor2", {}).get("R", []))]
        lower = [p / c for p, c in zip(a.get("pdi", {}).get("R", []), a.get("chourasia-thm3-lower", {}).get("R", []))]
        check(f"README {where2}: eta = {g2[1]} is figure2_tight.toml's", float(g2[1]) == eta, eta)
        check(f"README {where2}: pdi and chourasia-cor2 both apply", ratios and lower, (ratios, lower))
        for x in ratios:  # converged at K = 1000: within 1e-9 of the limit
            number(where2, "the tight solution / Cor 2", g2[0], x)
            check(f"README {where2}: the tight solution / Cor 2 is (2 - eta)^2/4", abs(x - (2 - eta) ** 2 / 4) < 1e-9, x)
        check(f"README {where2}: twice the stated lower bound", lower and all(abs(x - 2) < 0.05 for x in lower), lower)

# Shuffled batches, both sides.
shuffled = result_json("shuffled_dpsgd")
a = analyses(shuffled)
where = "'Shuffled batches, both sides' (examples/shuffled_dpsgd.toml)"
g = sentence(r"`composition-pld`: the certified upper bound, one Gaussian per epoch \(([\d.]+) there\); "
             r"- `poisson-as-if`: the Poisson accounting users apply to the run, status heuristic \(([\d.]+)\); "
             r"- `chua-shuffle-lower`: .*? status `released-lower-bound` \(([\d.]+)\)", where)
if g:
    for name, written, status in (("composition-pld", g[0], None), ("poisson-as-if", g[1], "heuristic"),
                                  ("chua-shuffle-lower", g[2], "released-lower-bound")):
        number(where, f"{name}'s epsilon", written, a.get(name, {}).get("epsilon"))
        if status:
            check(f"README {where}: {name}'s status is {status}", a.get(name, {}).get("status") == status,
                  a.get(name, {}).get("status"))
    check(f"README {where}: 'here it is above the Poisson number'",
          (a.get("chua-shuffle-lower", {}).get("epsilon") or 0) > (a.get("poisson-as-if", {}).get("epsilon") or 1e300))

# rdpdyn validate: the table and the prose (thm3-exact).
validate = [f for f in concrete_futures if f[1].endswith(" validate")]
check("README 'Use': `rdpdyn validate` was run", len(validate) == 1, [f[1] for f in concrete_futures])
measured = {}
if validate:
    for row in validate[0][4].result()[1].splitlines():
        m = re.match(r"^([\w.-]+)\s+([\d.e+-]+)\s+([\d.e+-]+)\s+PASS\b", row)
        if m:
            measured[m.group(1)] = (float(m.group(2)), float(m.group(3)))
table = re.findall(r"^\| ([\w.,/ -]+?) \| [^|]+ \| ([\d.e-]+) \| ([\d.e-]+) \|$", README, re.M)
check("README 'Validation': the table of `rdpdyn validate` is there", len(table) >= 10, table)
for names, error, tolerance in table:
    checks_of_row = []
    for n in names.split(", "):
        m = re.fullmatch(r"(.*?)(\d+)/(\d+)", n)
        checks_of_row += [m.group(1) + m.group(2), m.group(1) + m.group(3)] if m else [n]
    found = [measured.get(n) for n in checks_of_row]
    where = f"'Validation' table, row '{names}'"
    check(f"README {where}: `rdpdyn validate` has the checks {checks_of_row} and they pass", all(found),
          sorted(measured))
    if all(found):
        number(where, "the max rel. error (largest of the row)", error, max(f[0] for f in found))
        check(f"README {where}: the tolerance is {tolerance}", all(f[1] == float(tolerance) for f in found), found)
where = "'What the characteristics engine computes' (gamma: thm3-exact)"
g = sentence(r"by at most ([\d.e-]+) relative over (\d+) steps and are never below it \(`rdpdyn validate`, checks "
             r"`thm3-exact`, required ([\de.-]+), and `thm3-sound`\)", where)
if g and "thm3-exact" in measured:
    number(where, "thm3-exact's largest relative excess", g[0], measured["thm3-exact"][0])
    check(f"README {where}: thm3-exact's tolerance is {g[2]}", measured["thm3-exact"][1] == float(g[2]),
          measured["thm3-exact"])
    check(f"README {where}: thm3-sound's shortfall is 0", measured.get("thm3-sound", (1,))[0] == 0,
          measured.get("thm3-sound"))

# Outward rounding's margin 4 (k + 16) u (numerics/outward_rounding.hpp), as the README evaluates it.
u = 2.0 ** -53
for where, pattern in (
        ("'Outward rounding' ('4.5e-13 at k = 1000')",
         r"`4 \(k \+ 16\) u` relative after k steps \(u = 2\^-53; ([\d.e-]+) at k = (\d+)\)"),
        ("'Validation' ('the margin 4 (k + 16) u (X after 400 steps, ...)')",
         r"most of each error is the margin `4 \(k \+ 16\) u` \(([\d.e-]+) after (\d+) steps"),
        ("'Validation' ('the margin 4 (k + 16) u (..., X after 1000)')",
         r"most of each error is the margin `4 \(k \+ 16\) u` \([\d.e-]+ after \d+ steps, ([\d.e-]+) after (\d+)\)"),
        ("'The papers' figures' ('the outward rounding is at most X after 1000 steps')",
         r"the outward rounding is at most ([\d.e-]+) after (\d+) steps")):
    g = sentence(pattern, where)
    if g:
        number(where, f"the margin 4 (k + 16) u of numerics/outward_rounding.hpp at k = {g[1]}", g[0],
               4 * (int(g[1]) + 16) * u)

# The finite-difference engine's convergence study.
where = "'Three engines' (fd_convergence)"
g = sentence(r"\(`examples/fd_convergence\.toml`: observed orders ([\d., ]+?) from (\d+) to (\d+) cells", where)
if g:
    code, out, err, secs = jobs["fd_convergence"].result()
    rows = re.findall(r"^\s+(\d+)\s+\S+\s+\S+\s+([\d.]+|-)$", out, re.M)
    check(f"README {where}: `rdpdyn validate --convergence examples/fd_convergence.toml --grids 6` runs",
          code == 0 and rows, (code, out, err[-400:]))
    if rows:
        check(f"README {where}: the study runs from {g[1]} to {g[2]} cells", rows[0][0] == g[1] and rows[-1][0] == g[2],
              rows)
        written = [x.strip() for x in g[0].split(",")]
        got = [float(o) for c, o in rows[1:]]
        check(f"README {where}: observed orders {', '.join(written)}",
              len(written) == len(got) and all(agrees(w, x) for w, x in zip(written, got)), f"the program gives {got}")

# Calibration (Performance section).
where = "'Performance: PLD accountant' (calibrate --for noise_multiplier)"
g = sentence(r"`rdpdyn calibrate examples/dpsgd_accounting\.toml --epsilon (\d+) --delta ([\de.-]+) "
             r"--for noise_multiplier` [\d.]+ s \(noise multiplier ([\d.]+), ε (\d+) certified\)", where)
if g:
    cal = result_json("calibrate best")
    check(f"README {where}: the calibration's target is the README's", (cal.get("epsilon_target"), cal.get("delta")) ==
          (float(g[0]), float(g[1])), cal)
    number(where, "the noise multiplier", g[2], cal.get("noise_multiplier"))
    check(f"README {where}: epsilon <= {g[3]}", (cal.get("epsilon") or 1e300) <= float(g[3]), cal.get("epsilon"))
where = "'Performance: Calibration' (composition-sgm)"
g = sentence(r"\*\*The answers\*\*: rdpdyn z = ([\d.]+) \(order ([\d.]+)\)", where)
cal = result_json("calibrate composition-sgm")
if g:
    number(where, "the noise multiplier of calibrate --analysis composition-sgm", g[0], cal.get("noise_multiplier"))
    number(where, "its order", g[1], cal.get("best_order"))
g = sentence(r"\*\*Evaluations per search\*\*: rdpdyn (\d+) ", where)
if g:
    check(f"README {where}: {g[0]} evaluations", cal.get("evaluations") == int(g[0]),
          f"the program gives {cal.get('evaluations')}")
g = sentence(r"\| the example's (\d+) \|", where)
if g:
    check(f"README {where}: examples/dpsgd_accounting.toml configures {g[0]} orders",
          len(toml("dpsgd_accounting.toml")["orders"]["values"]) == int(g[0]), toml("dpsgd_accounting.toml")["orders"])
g = sentence(r"\| opacus' (\d+) `DEFAULT_ALPHAS` \|", where)
if g and HAS_PYTHON:
    r = subprocess.run(["/usr/bin/python3", "-c", "import rdpdyn; print(len(rdpdyn.default_orders()))"],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python")))
    check(f"README {where}: rdpdyn.default_orders() has {g[0]} orders", r.stdout.strip() == g[0], r.stdout + r.stderr)
where = "'Performance: Calibration' (the example)"
g = sentence(r"`examples/dpsgd_accounting\.toml` \(Poisson q = ([\d.]+), 10\^(\d+) steps, add/remove;", where)
if g:
    cfg = toml("dpsgd_accounting.toml")
    check(f"README {where}: q = {g[0]}, 10^{g[1]} steps, add/remove",
          (cfg["algorithm"]["sampling"], cfg["algorithm"]["sampling_rate"], cfg["algorithm"]["steps"],
           cfg["domain"]["adjacency"]) == ("poisson", float(g[0]), 10 ** int(g[1]), "add-remove"), cfg)
where = "'Performance: compare against opacus' (the example)"
g = sentence(r"\(`examples/dpsgd_accounting\.toml`: Poisson q = ([\d.]+), noise multiplier ([\d.]+), 10\^(\d+) steps, "
             r"δ = ([\de.-]+)\)", where)
if g:
    cfg = toml("dpsgd_accounting.toml")
    check(f"README {where}: q, noise multiplier, steps and delta",
          (cfg["algorithm"]["sampling_rate"], cfg["algorithm"]["noise_multiplier"], cfg["algorithm"]["steps"],
           cfg["report"]["delta"]) == (float(g[0]), float(g[1]), 10 ** int(g[2]), float(g[3])), cfg)
g = sentence(r"its `composition-sgm` ε ([\d.]+) is below opacus'", where)
if g:
    number(where, "composition-sgm's epsilon", g[0], analyses(dpsgd).get("composition-sgm", {}).get("epsilon"))

# The PLD table: composition-pld's epsilon on each grid.
where = "'Performance: PLD accountant' table"
check(f"README {where}: the grids' rows are there", len(PLD_GRIDS) >= 4, PLD_GRIDS)
pld_default = analyses(dpsgd).get("composition-pld", {}).get("epsilon")


def pld_epsilon(label):
    return analyses(result_json("pld " + label)).get("composition-pld", {}).get("epsilon")


for label, grid in PLD_GRIDS.items():
    g = sentence(r"\| (?:\*\*)?" + re.escape(label) + r"(?:\*\*)? \| (?:\*\*)?([\d.]+)", where)
    value = pld_default if grid is None else pld_epsilon(label)
    if g:
        at = "" if grid is None else f" at pld_grid = {grid!r}"
        number(where + f", row '{label}'", "composition-pld's epsilon" + at, g[0], value)
    refines = re.search(r"refines to 2\^-(\d+)", label)
    if refines:
        fixed = [k for k, v in PLD_GRIDS.items() if v == 2.0 ** -int(refines.group(1))]
        fixed_value = pld_epsilon(fixed[0]) if fixed else None
        check(f"README {where}, row '{label}': the default gives the fixed grid 2^-{refines.group(1)}'s epsilon",
              value is not None and value == fixed_value, (value, fixed_value))

# Settings the prose states of the examples.
where = "'Performance: Sweeps' (examples/sweep_surface.toml)"
g = sentence(r"`examples/sweep_surface\.toml` is the surface of the issue that asked for sweeps: (\d+) noise levels σ "
             r"\(log, ([\d.]+) to ([\d.]+)\) x (\d+) step counts \((\d+) to (\d+)\) x (\d+) orders", where)
if g:
    cfg = toml("sweep_surface.toml")
    axes = {ax["key"]: ax["range"] for ax in cfg["sweep"]["axis"]}
    sig, stp = axes.get("algorithm.sigma", {}), axes.get("algorithm.steps", {})
    check(f"README {where}: the axes and orders",
          (sig.get("count"), sig.get("scale"), sig.get("start"), sig.get("stop"), stp.get("count"), stp.get("start"),
           stp.get("stop"), cfg["orders"].get("count")) ==
          (int(g[0]), "log", float(g[1]), float(g[2]), int(g[3]), int(g[4]), int(g[5]), int(g[6])), cfg)
where = "links list (examples/schedule_cosine.toml)"
g = sentence(r"a cosine learning-rate decay over 10\^(\d+) steps from one preset \(`schedule_cosine\.toml`", where)
if g:
    check(f"README {where}: 10^{g[0]} steps", toml("schedule_cosine.toml")["algorithm"]["steps"] == 10 ** int(g[0]))
where = "links list (docs/hdf5.md)"
g = sentence(r"\[`docs/hdf5\.md`\]\((?:docs/)?hdf5\.md\) \(schema version (\d+),", where)
if g:
    try:
        import h5py
        with h5py.File(PLOT_INPUT, "r") as f:
            check(f"README {where}: solve's file has schema_version {g[0]}",
                  int(f.attrs["schema_version"]) == int(g[0]), f.attrs.get("schema_version"))
    except ImportError:
        print("skipped the schema version (no h5py)")

# The README's DP-SGD quick start: its TOML block is the example file, and its numbers are the program's.
where = "quick start (DP-SGD)"
block = re.search(r"```toml\n(.*?)```", _texts[0], re.S)
example_text = "".join(x for x in open(os.path.join(EX, "dpsgd_cifar10.toml")).read().splitlines(True)
                       if not x.startswith("#"))
check(f"README {where}: the TOML block is examples/dpsgd_cifar10.toml (comments aside)",
      block is not None and block.group(1).strip() == example_text.strip(), block.group(1) if block else None)
g = sentence(r"`compare` says epsilon ([\d.]+) by `composition-pld`", where)
if g:
    cifar = result_json("dpsgd_cifar10")
    check(f"README {where}: composition-pld is best", cifar.get("best", {}).get("name") == "composition-pld", cifar.get("best"))
    number(where, "composition-pld's epsilon", g[0], cifar.get("best", {}).get("epsilon"))
g = sentence(r"`calibrate` answers a noise multiplier of ([\d.]+)", where)
if g:
    number(where, "calibrate's noise multiplier", g[0], result_json("dpsgd_cifar10 calibrate").get("noise_multiplier"))

POOL.shutdown()
if checks._counts["failed"]:
    print("The README's shell commands:\n" + listing)
print(f"{len(commands)} README commands ({len(synopses)} synopsis, {len(concrete)} concrete), "
      f"{len(synopsis_runs) + len(concrete_futures)} runs, {time.monotonic() - START:.1f} s")
finish()
