#!/usr/bin/env python3
"""The first hour of a DP-SGD user (issue 37), each finding as a check that fails if it comes back:

- a DP-SGD run with no [domain] table names the relation its number is for, marked "(default)",
  and says how to get the ecosystem's number (add/remove neighbours); written relations carry no
  mark; `solve` and `calibrate` name the terms too, JSON carries them, a "pdi" run has none;
- a misspelt key is named as unknown, with the key meant, before any required key is called missing;
- a run for accounting alone may leave out [orders] and takes opacus' 151 orders.

Reference (numbers only): dp_accounting at commit b5b0286e (google/differential-privacy,
python/dp_accounting), Debian's Python 3.11 / numpy 1.24 / scipy 1.10: PLDAccountant (its defaults)
composing SelfComposedDpEvent(PoissonSampledDpEvent(256/50000, GaussianDpEvent(1.1)), 5860),
get_epsilon(1e-5) = 1.8162552391777997 (the CIFAR-10 run: n 50000, Poisson batches of 256, 30
epochs).

usage: test_first_hour.py RDPDYN SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

RDPDYN, SOURCE = sys.argv[1], sys.argv[2]
DP_ACCOUNTING_PLD = 1.8162552391777997

CIFAR = """[algorithm]
kind = "noisy-sgd"
sampling = "poisson"
n = 50000
sampling_rate = 0.00512
noise_multiplier = 1.1
steps = 5860

[report]
delta = 1e-5
"""


def run(args, text=None, timeout=600):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "run.toml")
        if text is not None:
            with open(path, "w") as f:
                f.write(text)
        argv = [RDPDYN] + [path if a == "RUN" else a for a in args]
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


# 1. The relation a DP-SGD number is for, with no [domain]: named, marked, and the way to theirs.
r = run(["compare", "RUN"], CIFAR)
check("no [domain]: compare exits 0", r.returncode == 0, r.stderr)
check("no [domain]: the table names the default relation",
      "for replace-one neighbours (default), Poisson sampling, q = 0.00512, one record per user (default)" in r.stdout,
      r.stdout[-1500:])
check("no [domain]: the table says how to get the ecosystem's number",
      "opacus, dp_accounting and tensorflow/privacy count add/remove neighbours" in r.stdout
      and 'adjacency = "add-remove"' in r.stdout, r.stdout[-1500:])
r = run(["compare", "RUN", "--json"], CIFAR)
terms = json.loads(r.stdout)["terms"] if r.returncode == 0 else {}
check("no [domain]: JSON terms", terms.get("adjacency") == "replace" and terms.get("adjacency_default") is True
      and terms.get("records_per_user") == 1 and terms.get("ecosystem_hint"), terms)

written = CIFAR + '\n[domain]\nadjacency = "add-remove"\nrecords_per_user = 1\n'
r = run(["compare", "RUN", "--json"], written)
obj = json.loads(r.stdout) if r.returncode == 0 else {}
terms = obj.get("terms") or {}
check("add-remove written: no (default), no hint",
      terms.get("adjacency") == "add-remove" and terms.get("adjacency_default") is False
      and terms.get("records_per_user_default") is False and terms.get("ecosystem_hint") is None
      and "(default)" not in terms.get("line", "(default)"), terms)
eps = (obj.get("best") or {}).get("epsilon")
check("add-remove written: the ecosystem's number (dp_accounting b5b0286 PLD 1.8162552, within 2e-4)",
      eps is not None and abs(eps / DP_ACCOUNTING_PLD - 1) < 2e-4, eps)

r = run(["calibrate", "RUN", "--epsilon", "2", "--delta", "1e-5", "--json"], CIFAR)
terms = json.loads(r.stdout).get("terms") if r.returncode == 0 else None
check("calibrate --json: the terms", terms is not None and terms.get("adjacency_default") is True, (r.stderr, terms))
r = run(["calibrate", "RUN", "--epsilon", "2", "--delta", "1e-5"], CIFAR)
check("calibrate: the terms line", "for replace-one neighbours (default)" in r.stdout, r.stdout)

example = os.path.join(SOURCE, "examples", "figure1_lambda1.toml")
r = subprocess.run([RDPDYN, "solve", example], capture_output=True, text=True, timeout=600)
check("solve: the summary names the terms", "neighbours (default), full batch, one record per user (default)"
      in r.stdout, r.stdout)
r = subprocess.run([RDPDYN, "solve", example, "--json"], capture_output=True, text=True, timeout=600)
check("solve --json: terms", r.returncode == 0 and json.loads(r.stdout)["terms"]["sampling"] == "full batch", r.stdout[:300])
pdi = os.path.join(SOURCE, "examples", "pdi_decaying_sensitivity.toml")
r = subprocess.run([RDPDYN, "compare", pdi, "--json"], capture_output=True, text=True, timeout=600)
check("a pdi run has no relation: terms null", r.returncode == 0 and json.loads(r.stdout)["terms"] is None, r.stdout[:300])

# 2. A misspelt key is named before the key it left missing.
typo = CIFAR.replace("noise_multiplier", "noise_multipler")
r = run(["compare", "RUN"], typo)
check("misspelt key: exit 2", r.returncode == 2, (r.returncode, r.stderr))
check("misspelt key: named as unknown, with the key meant",
      "'algorithm.noise_multipler'" in r.stderr and "unknown key" in r.stderr
      and "did you mean 'algorithm.noise_multiplier'" in r.stderr and "missing" not in r.stderr, r.stderr)
r = run(["compare", "RUN"], CIFAR.replace('kind = "noisy-sgd"', 'kidn = "noisy-sgd"'))
check("misspelt kind: named as unknown", r.returncode == 2 and "did you mean 'algorithm.kind'" in r.stderr, r.stderr)

# 3. A table for reading: the rows that apply, bounds tightest first, the others in their own group,
#    the refused ones as a count (--all: with their reasons); every footer complete, no NaN row.
r = run(["compare", "RUN"], written)
lines = r.stdout.splitlines()
# the applies column (after name and status): "yes" on every row by default
applies = [x[52:59].strip() for x in lines[1:] if len(x) > 60 and x[:30].strip() and x[52:59].strip() in ("yes", "no")]
check("table: no row of an analysis that does not apply", applies and set(applies) == {"yes"}, r.stdout[:2000])
count = next((x for x in lines if "analyses do not apply to this run (each with its reason: --all)" in x), "")
check("table: the refused ones as one line with a count", count.split()[0].isdigit() and int(count.split()[0]) > 20, count)
first = lines[1].split()
check("table: the best is the first row", first[0] == "composition-pld" and first[1] == "*", lines[1])
sep = next((i for i, x in enumerate(lines) if x.startswith("-- not upper bounds on the run")), None)
heur = next((i for i, x in enumerate(lines) if x.startswith("poisson-as-if") or x.startswith("steinke-last-iterate")), None)
check("table: heuristics in their own group below the bounds", sep is not None and heur is not None and heur > sep,
      r.stdout[:2000])
r = run(["compare", "RUN", "--all"], written)
check("--all: the refused ones with their reasons", "-- do not apply to this run:" in r.stdout
      and "needs full-batch noisy GD" in r.stdout and max(len(x) for x in r.stdout.splitlines()[:60]) <= 200,
      r.stdout[:1500])
shuffled = written.replace('sampling = "poisson"', 'sampling = "shuffle"\nbatch_size = 250').replace(
    "sampling_rate = 0.00512\n", "")
r = run(["compare", "RUN"], shuffled)
summary = next((x for x in r.stdout.splitlines() if x.startswith("* ")), "")
check("shuffled add/remove: no 'nan by none'", r.returncode == 0 and "nan" not in summary and "none" not in summary,
      (r.stderr, summary))
r = run(["compare", "RUN"], written.replace("[report]\ndelta = 1e-5\n", ""))
summary = next((x for x in r.stdout.splitlines() if x.startswith("* ")), "")
check("no [report] delta: the footer names the best and how to get epsilon",
      "composition" in summary and "R = " in summary and "set [report] delta" in summary, summary)

# 4. calibrate takes its target from [report] when the command line leaves it out.
r = run(["calibrate", "RUN", "--json"], written.replace("[report]\ndelta = 1e-5\n", "[report]\ndelta = 1e-5\nepsilon = 2\n"))
obj = json.loads(r.stdout) if r.returncode == 0 else {}
check("calibrate: epsilon and delta from [report]", obj.get("epsilon_target") == 2 and obj.get("delta") == 1e-5,
      (r.stderr, obj.get("epsilon_target")))
r = run(["calibrate", "RUN"], written)
check("calibrate without any epsilon: exit 2 naming --epsilon", r.returncode == 2 and "'--epsilon' = missing" in r.stderr,
      r.stderr)

# 5. solve and compare report different quantities for shuffled batches: solve says which it gives.
ys = os.path.join(SOURCE, "examples", "ye_shokri_mnist_partition.toml")
r = subprocess.run([RDPDYN, "solve", ys, "--json"], capture_output=True, text=True, timeout=600)
q = json.loads(r.stdout).get("quantity") if r.returncode == 0 else None
check("solve on batches in a partition: says R is the worst placement and where the average is",
      q is not None and "worst case over where the differing record falls" in q and "rdpdyn compare" in q, (r.stderr, q))

# 6. The practitioner's formats: a DpEvent as json.dumps(event.to_named_tuple()) writes it (arrays:
#    [module_name, class_name, fields...], dp_accounting b5b0286 for SelfComposedDpEvent(
#    PoissonSampledDpEvent(0.01, GaussianDpEvent(1.1)), 100)) reads as its _asdict() form; a run
#    without a sigma calibrates to a JSON null, not 0.
tuple_form = ('["dp_accounting.dp_event", "SelfComposedDpEvent", ["dp_accounting.dp_event", "PoissonSampledDpEvent", '
              '0.01, ["dp_accounting.dp_event", "GaussianDpEvent", 1.1]], 100]')
dict_form = ('{"module_name": "dp_accounting.dp_event", "class_name": "SelfComposedDpEvent", "event": '
             '{"module_name": "dp_accounting.dp_event", "class_name": "PoissonSampledDpEvent", "sampling_probability": '
             '0.01, "event": {"module_name": "dp_accounting.dp_event", "class_name": "GaussianDpEvent", '
             '"noise_multiplier": 1.1}}, "count": 100}')
eps = []
for form in (tuple_form, dict_form):
    r = run(["compare", "--from-dp-event", "RUN", "--json"], form)
    eps.append(json.loads(r.stdout)["best"]["epsilon"] if r.returncode == 0 else (r.stderr,))
check("DpEvent as to_named_tuple() JSON: read, the same epsilon as its dict form", eps[0] == eps[1]
      and isinstance(eps[0], float), eps)
r = run(["calibrate", "RUN", "--epsilon", "2", "--delta", "1e-5", "--json"], written)
check("calibrate --json on a run for accounting alone: sigma null", r.returncode == 0
      and json.loads(r.stdout)["sigma"] is None, r.stdout[:300])

# 7. [orders] optional for accounting alone: opacus' orders.
r = run(["compare", "RUN", "--json"], CIFAR)
orders = json.loads(r.stdout)["orders"] if r.returncode == 0 else []
check("no [orders], accounting alone: opacus' 151 orders", len(orders) == 151 and orders[0] == 1.1
      and orders[98] == 10.9 and orders[-1] == 63, orders[:3])
no_orders = open(example).read()
start = no_orders.index("[orders]")
end = no_orders.index("\n[", start + 1) + 1
r = run(["solve", "RUN"], no_orders[:start] + no_orders[end:])
check("no [orders] on a run with a sensitivity: exit 2 naming [orders]", r.returncode == 2 and "'orders' = missing"
      in r.stderr, r.stderr)

finish()
