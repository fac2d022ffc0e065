#!/usr/bin/env python3
"""delta at [report] epsilon, the PLD entries' curves, and the warning of unamplified sampled runs,
end to end (the issue's items 3 and 4):

- `compare --json` / `-o` on examples/dpsgd_accounting.toml with `--set report.epsilon=2`: every
  analysis' delta_at_epsilon (the PLD's below composition-sgm's), the RDP and Gaussian-DP entries'
  delta checked against the conversions and the mu-GDP profile computed here, composition-pld's
  privacy profile and trade-off curve (monotone, in [0, 1], consistent with its delta and epsilon),
  the same numbers in HDF5 (/curves/<name>, attributes delta_at_epsilon, root epsilon), the table's
  delta@2 column and summary line;
- `solve` with [report] epsilon: delta at the final time by the conversions over the orders;
- item 4: DP-SGD with Poisson sampling under replace adjacency and no [domain] table gets an
  amplified epsilon (composition-pld) and no warning; with fixed-size batches drawn every step and no
  lipschitz_loss nothing amplifies: compare's and calibrate's text say so in a WARNING line naming
  domain.lipschitz_loss, which removes it.

usage: test_delta_and_curves.py RDPDYN SOURCE_DIR
"""
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

import h5py  # noqa: E402
import mpmath  # noqa: E402

RDPDYN, SOURCE = sys.argv[1], sys.argv[2]
EX = os.path.join(SOURCE, "examples")
DPSGD = os.path.join(EX, "dpsgd_accounting.toml")
mpmath.mp.dps = 40


def run(*args, expect=0):
    r = subprocess.run([RDPDYN, *args], capture_output=True, text=True, timeout=600)
    check(f"{' '.join(args[:2])}: exit {expect}", r.returncode == expect, r.stderr[-2000:])
    return r


def rdp_delta(orders, R, eps):
    """min over the orders of Mironov's, the improved and Asoodeh et al.'s conversions in their delta
    form (docs/math.md section 4), at 40 digits, capped at 1."""
    best = mpmath.mpf(1)
    for a, r in zip(orders, R):
        if r is None:
            continue
        a, r, e = mpmath.mpf(a), mpmath.mpf(r), mpmath.mpf(eps)
        candidates = [mpmath.exp((a - 1) * (r - e)),
                      mpmath.exp((a - 1) * (r - e + mpmath.log(1 - 1 / a)) - mpmath.log(a))]
        if e > 0:
            candidates.append(mpmath.expm1((a - 1) * r) / (a * mpmath.expm1((a - 1) * e)))
        best = min([best] + candidates)
    return float(best)


def gdp_delta(mu, eps):
    """delta(epsilon) of mu-GDP (Dong, Roth & Su 2022 Cor 2.13) at 40 digits."""
    mu, e = mpmath.mpf(mu), mpmath.mpf(eps)
    return float(mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2))


def nonincreasing(xs, slack=0.0):
    return all(b <= a * (1 + slack) + slack for a, b in zip(xs, xs[1:]))


# ---- compare: delta at epsilon, profiles, trade-off curves -----------------------------------------
obj = json.loads(run("compare", DPSGD, "--json", "--set", "report.epsilon=2").stdout)
a = {x["name"]: x for x in obj["analyses"]}
pld, sgm = a["composition-pld"], a["composition-sgm"]
check("the report epsilon is written", obj["epsilon"] == 2.0, obj["epsilon"])
check("composition-pld and composition-sgm apply", pld["applies"] and sgm["applies"], (pld["reason"], sgm["reason"]))
check("delta at epsilon 2: composition-pld's below composition-sgm's",
      0 < pld["delta_at_epsilon"] < sgm["delta_at_epsilon"] <= 1, (pld["delta_at_epsilon"], sgm["delta_at_epsilon"]))
for x in obj["analyses"]:
    if not x["applies"]:
        check(f"{x['name']}: no delta, no curves where it does not apply",
              x["delta_at_epsilon"] is None and x["profile"] is None and x["tradeoff"] is None)
    elif x["status"] == "heuristic":
        check(f"{x['name']}: a heuristic reports no delta at epsilon (not a bound)", x["delta_at_epsilon"] is None)
    elif x["mu"] is None:
        # An RDP entry: the smallest conversion over the recorded orders, rounded outward (never below).
        ref = rdp_delta(obj["orders"], x["R"], 2.0)
        if x["name"] != "composition-pld":
            check(f"{x['name']}: delta at epsilon = the best conversion over the orders, rounded up",
                  ref <= x["delta_at_epsilon"] <= ref * (1 + 1e-9) + 1e-300, (x["delta_at_epsilon"], ref))
        else:
            check("composition-pld: delta at epsilon at most its RDP conversion's",
                  x["delta_at_epsilon"] <= ref * (1 + 1e-9), (x["delta_at_epsilon"], ref))
eligible = [x for x in obj["analyses"] if x["applies"] and x["status"] in ("published", "derived")]
smallest = min(x["delta_at_epsilon"] for x in eligible)
check("best.delta_at_epsilon is the smallest of the eligible entries'", obj["best"]["delta_at_epsilon"] == smallest
      and obj["best"]["delta_at_epsilon_analysis"] == "composition-pld", obj["best"])
check("no amplification warning: composition-sgm and composition-pld amplify", obj["amplification_warning"] is None,
      obj["amplification_warning"])

profile, tradeoff = pld["profile"], pld["tradeoff"]
check("composition-pld has a profile and a trade-off curve", profile is not None and tradeoff is not None)
check("only composition-pld has curves here", [x["name"] for x in obj["analyses"] if x["profile"]] == ["composition-pld"])
eps, delta = profile["epsilon"], profile["delta"]
check("profile: units named", profile["units"] == {"epsilon": "nats", "delta": "probability"}, profile["units"])
check("profile: one delta per epsilon, many points", len(eps) == len(delta) >= 100, (len(eps), len(delta)))
check("profile: epsilon from 0, increasing", eps[0] == 0 and all(y > x for x, y in zip(eps, eps[1:])), eps[:3])
check("profile: delta in [0, 1], non-increasing", all(0 <= d <= 1 for d in delta) and nonincreasing(delta), delta[:5])
# The delta at 2 lies between the profile's neighbouring points (the same certified PLD; the profile's
# points and the requested one bracket delta(epsilon) each up to rounding).
i = max(k for k, e in enumerate(eps) if e <= 2.0)
check("profile brackets delta at epsilon = 2", eps[i] <= 2.0 < eps[i + 1]
      and delta[i + 1] * (1 - 1e-9) <= pld["delta_at_epsilon"] <= delta[i] * (1 + 1e-9),
      (eps[i], delta[i], pld["delta_at_epsilon"], eps[i + 1], delta[i + 1]))
# And epsilon at delta = 1e-5 agrees with it: every profile point beyond that epsilon has delta <= 1e-5.
beyond = [d for e, d in zip(eps, delta) if e >= pld["epsilon"]]
before = [d for e, d in zip(eps, delta) if e < pld["epsilon"] * 0.99]
check("profile: delta <= 1e-5 beyond epsilon(1e-5), above it well before",
      beyond and max(beyond) <= 1e-5 * (1 + 1e-9) and before and before[-1] > 1e-5, (pld["epsilon"], beyond[:2], before[-1:]))
alpha, beta = tradeoff["alpha"], tradeoff["beta"]
check("tradeoff: meaning named", "type II" in tradeoff["meaning"] and "type I" in tradeoff["meaning"], tradeoff["meaning"])
check("tradeoff: alpha from 0 to 1, increasing", alpha[0] == 0 and alpha[-1] == 1
      and all(y > x for x, y in zip(alpha, alpha[1:])), (alpha[:3], alpha[-1]))
check("tradeoff: beta in [0, 1], non-increasing in alpha", len(beta) == len(alpha) and all(0 <= b <= 1 for b in beta)
      and nonincreasing(beta), beta[:5])
check("tradeoff: beta(alpha) <= 1 - alpha (the test that ignores its data)",
      all(b <= 1 - x + 1e-12 for x, b in zip(alpha, beta)), [(x, b) for x, b in zip(alpha, beta) if b > 1 - x][:3])
check("tradeoff: a non-trivial curve (beta > 1 - alpha - 0.5 somewhere, < 1 - alpha somewhere)",
      any(b < 1 - x - 1e-3 for x, b in zip(alpha, beta)) and beta[1] > 0.9, beta[:3])

# Gaussian-DP entries: the exact mu-GDP profile, rounded outward (figure2_tight: mu = 0.0398).
gdp = json.loads(run("compare", os.path.join(EX, "figure2_tight.toml"), "--json", "--set", "report.delta=1e-5",
                     "--set", "report.epsilon=0.1").stdout)
for x in gdp["analyses"]:
    if x["applies"] and x["mu"] is not None:
        ref = gdp_delta(x["mu"], 0.1)
        check(f"{x['name']}: delta at epsilon = the mu-GDP profile, rounded up",
              ref <= x["delta_at_epsilon"] <= ref * (1 + 1e-9), (x["mu"], x["delta_at_epsilon"], ref))
    if x["status"] in ("lower-bound", "record-specific"):
        check(f"{x['name']}: no delta for a bound that is not a bound on the run", x["delta_at_epsilon"] is None)
check("figure2_tight: the Gaussian-DP entry has the smallest delta (bok-su-altschuler-full-batch)",
      gdp["best"]["delta_at_epsilon_analysis"] == "bok-su-altschuler-full-batch", gdp["best"])

# Without [report] epsilon: no delta, the curves still.
plain = json.loads(run("compare", DPSGD, "--json").stdout)
check("without report.epsilon: epsilon null, every delta_at_epsilon null",
      plain["epsilon"] is None and plain["best"]["delta_at_epsilon"] is None
      and all(x["delta_at_epsilon"] is None for x in plain["analyses"]))
check("without report.epsilon: the same profile", {x["name"]: x for x in plain["analyses"]}["composition-pld"]["profile"]
      == profile)

# The table: a delta@2 column (after epsilon) only with report.epsilon, the summary line with the best delta and no
# "alpha = nan" for an epsilon without an order.
table = run("compare", DPSGD, "--set", "report.epsilon=2").stdout
header = table.splitlines()[0]
check("table: delta@2 column", "delta@2" in header.split(), header)
summary = next(line for line in table.splitlines() if line.startswith("* tightest"))
check("table: the summary names the smallest delta at epsilon and its analysis",
      "smallest delta at epsilon = 2: 0.04" in summary and "(composition-pld)" in summary, summary)
check("table: no order printed for the PLD's epsilon", "nan" not in summary and "pld" in summary, summary)
check("table without report.epsilon: no delta column", "delta@" not in run("compare", DPSGD).stdout.splitlines()[0])

# HDF5: the same numbers, with names and units.
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "c.h5")
    run("compare", DPSGD, "-o", out, "--quiet", "--set", "report.epsilon=2")
    with h5py.File(out, "r") as f:
        check("HDF5: schema version 5", int(f.attrs["schema_version"]) == 5, f.attrs["schema_version"])
        check("HDF5: root epsilon", f.attrs["epsilon"] == 2.0, f.attrs.get("epsilon"))
        check("HDF5: delta_at_epsilon per analysis", f["analyses/composition-pld"].attrs["delta_at_epsilon"]
              == pld["delta_at_epsilon"] and f["analyses/composition-sgm"].attrs["delta_at_epsilon"] == sgm["delta_at_epsilon"])
        check("HDF5: best delta_at_epsilon", f["best/R"].attrs["delta_at_epsilon"] == smallest
              and f["best/R"].attrs["delta_at_epsilon_analysis"] == "composition-pld")
        check("HDF5: /curves holds the PLD entry only", list(f["curves"].keys()) == ["composition-pld"], list(f["curves"]))
        g = f["curves/composition-pld"]
        for name, values, units in (("profile_epsilon", eps, "nats"), ("profile_delta", delta, "probability"),
                                    ("tradeoff_alpha", alpha, "probability"), ("tradeoff_beta", beta, "probability")):
            check(f"HDF5: {name} as in JSON, units {units}", list(g[name][()]) == values and g[name].attrs["units"] == units
                  and len(g[name].attrs["description"]) > 10, name)
        check("HDF5: no amplification warning", f.attrs["amplification_warning"] == "")
    out = os.path.join(tmp, "plain.h5")
    run("compare", DPSGD, "-o", out, "--quiet")
    with h5py.File(out, "r") as f:
        check("HDF5 without report.epsilon: no root epsilon, NaN delta_at_epsilon",
              "epsilon" not in f.attrs and math.isnan(f["analyses/composition-pld"].attrs["delta_at_epsilon"]))

    # ---- solve: delta at [report] epsilon of its own bound --------------------------------------
    fig1 = os.path.join(EX, "figure1_lambda1.toml")
    s = json.loads(run("solve", fig1, "--json", "--set", "report.epsilon=0.05", "--set", "report.delta=1e-5").stdout)
    ref = rdp_delta(s["orders"], s["R"], 0.05)
    check("solve: delta at epsilon = the best conversion of the final row over the orders, rounded up",
          s["report_epsilon"] == 0.05 and ref <= s["delta_at_epsilon"] <= ref * (1 + 1e-9), (s.get("delta_at_epsilon"), ref))
    check("solve: the order attaining it is a configured one", s["delta_at_epsilon_order"] in s["orders"])
    check("solve: epsilon at delta unchanged beside it", s["delta"] == 1e-5 and s["epsilon"] > 0)
    out = os.path.join(tmp, "s.h5")
    run("solve", fig1, "-o", out, "--set", "report.epsilon=0.05")
    with h5py.File(out, "r") as f:
        check("solve HDF5: report_epsilon and delta_at_epsilon as float64 root attributes",
              f.attrs["report_epsilon"] == 0.05 and f.attrs["delta_at_epsilon"] == s["delta_at_epsilon"]
              and "delta_at_epsilon" in f.attrs["extra_attributes"].splitlines(), dict(f.attrs).keys())
    s = json.loads(run("solve", fig1, "--json").stdout)
    check("solve without report.epsilon: no delta", "delta_at_epsilon" not in s and "report_epsilon" not in s)

    # ---- item 4: DP-SGD under replace adjacency, not silently useless ----------------------------
    base = """[orders]
values = [1.5, 2, 3, 4, 8, 16, 32, 64]
[algorithm]
kind = "noisy-sgd"
steps = 10000
noise_multiplier = 1.1
n = 60000
[report]
delta = 1e-5
"""
    poisson = os.path.join(tmp, "replace_poisson.toml")
    with open(poisson, "w") as f:
        f.write(base.replace('kind = "noisy-sgd"', 'kind = "noisy-sgd"\nsampling = "poisson"\nsampling_rate = 0.01'))
    per_step = os.path.join(tmp, "replace_per_step.toml")
    with open(per_step, "w") as f:
        f.write(base.replace('kind = "noisy-sgd"', 'kind = "noisy-sgd"\nsampling = "per-step"\nbatch_size = 600'))

    # Poisson, replace, no [domain]: composition-pld amplifies (its pair needs only S_g), far below
    # the unamplified Gaussian composition's 1.7e4 (the 33,365 came from gdp-composition alone).
    c = json.loads(run("compare", poisson, "--json").stdout)
    ca = {x["name"]: x for x in c["analyses"]}
    check("replace Poisson: composition-pld is best, amplified, far below the unamplified composition",
          c["best"]["name"] == "composition-pld" and c["best"]["epsilon"] < 1000
          and c["best"]["epsilon"] < ca["gdp-composition"]["epsilon"] / 20, (c["best"]["name"], c["best"]["epsilon"]))
    check("replace Poisson: no warning", c["amplification_warning"] is None, c["amplification_warning"])
    check("replace Poisson: no WARNING in the table", "WARNING" not in run("compare", poisson).stdout)
    k = run("calibrate", poisson, "--epsilon", "2", "--delta", "1e-5", "--for", "noise_multiplier").stdout
    check("replace Poisson: calibrate by the PLD, no warning, no order printed",
          "tightest composition-pld" in k and "WARNING" not in k and "pld conversion" in k and "nan" not in k, k)

    # Fixed-size batches every step, replace, no lipschitz_loss: composition-pld amplifies by Dong,
    # Roth & Su's C_q (the batches with and without the record differ by a swap: no norm bound needed).
    c = json.loads(run("compare", per_step, "--json").stdout)
    ca = {x["name"]: x for x in c["analyses"]}
    check("replace per-step: composition-pld amplifies (C_q), no warning",
          c["best"]["name"] == "composition-pld" and c["amplification_warning"] is None
          and not ca["composition-sgm"]["applies"]
          and c["best"]["epsilon"] < ca["gdp-composition"]["epsilon"] / 100, (c["best"], c["amplification_warning"]))

    # ... and with an initial divergence given as a Rényi curve (no profile: the PLD refuses) nothing
    # amplifies: the warning names the key.
    per_step_initial = os.path.join(tmp, "replace_per_step_initial.toml")
    with open(per_step) as f, open(per_step_initial, "w") as g:
        g.write(f.read() + '[initial]\nkind = "linear"\nslope = 0.01\n')
    c = json.loads(run("compare", per_step_initial, "--json").stdout)
    check("replace per-step with [initial]: only unamplified entries apply",
          not {x["name"]: x for x in c["analyses"]}["composition-sgm"]["applies"]
          and not {x["name"]: x for x in c["analyses"]}["composition-pld"]["applies"], c["best"]["name"])
    warning = c["amplification_warning"] or ""
    check("replace per-step with [initial]: JSON carries the warning", warning.startswith("WARNING:") and "UNAMPLIFIED" in warning
          and "domain.lipschitz_loss = true" in warning, warning)
    table = run("compare", per_step_initial).stdout
    line = next((x for x in table.splitlines() if x.startswith("WARNING:")), "")
    check("replace per-step with [initial]: the table's WARNING line right after the summary names the key",
          "amplification by sampling" in line and "domain.lipschitz_loss = true" in line
          and table.splitlines().index(line) == 1 + next(i for i, x in enumerate(table.splitlines()) if x.startswith("* tightest")),
          table[-1500:])
    k = run("calibrate", per_step_initial, "--epsilon", "2", "--delta", "1e-5", "--for", "noise_multiplier")
    check("replace per-step with [initial]: calibrate's text warns, exit 0", k.stdout.splitlines()[-1].startswith("WARNING:")
          and "domain.lipschitz_loss = true" in k.stdout, k.stdout)
    kj = json.loads(run("calibrate", per_step_initial, "--epsilon", "2", "--delta", "1e-5", "--for", "noise_multiplier",
                        "--json").stdout)
    check("replace per-step with [initial]: calibrate's JSON carries it", (kj["amplification_warning"] or "").startswith("WARNING:"), kj)
    declared = json.loads(run("compare", per_step_initial, "--json", "--set", "domain.lipschitz_loss=true").stdout)
    check("replace per-step with [initial] and lipschitz_loss: composition-sgm is disputed there, the warning says how "
          "to count it", (declared["amplification_warning"] or "").startswith("WARNING:")
          and "report.include_disputed = true" in declared["amplification_warning"], declared["amplification_warning"])
    fixed = json.loads(run("compare", per_step_initial, "--json", "--set", "domain.lipschitz_loss=true",
                           "--set", "report.include_disputed=true").stdout)
    check("... and with include_disputed composition-sgm amplifies, no warning",
          fixed["best"]["name"] == "composition-sgm" and fixed["amplification_warning"] is None
          and fixed["best"]["epsilon"] < c["best"]["epsilon"] / 100, (fixed["best"], fixed["amplification_warning"]))
    k = run("calibrate", per_step_initial, "--epsilon", "2", "--delta", "1e-5", "--for", "noise_multiplier",
            "--set", "domain.lipschitz_loss=true", "--set", "report.include_disputed=true").stdout
    check("... and calibrate does not warn", "WARNING" not in k, k)

    # Poisson under replace where the PLD cannot apply either (an initial divergence given as a Rényi
    # curve): the warning names both keys, and add-remove adjacency removes it.
    initial = os.path.join(tmp, "replace_poisson_initial.toml")
    with open(poisson) as f, open(initial, "w") as g:
        g.write(f.read() + '[initial]\nkind = "linear"\nslope = 0.01\n')
    c = json.loads(run("compare", initial, "--json").stdout)
    warning = c["amplification_warning"] or ""
    check("replace Poisson with [initial]: the warning names lipschitz_loss and add-remove",
          warning.startswith("WARNING:") and "domain.lipschitz_loss = true" in warning
          and 'domain.adjacency = "add-remove"' in warning, warning)
    c = json.loads(run("compare", initial, "--json", "--set", 'domain.adjacency="add-remove"').stdout)
    check("... and add-remove adjacency lets composition-sgm amplify", c["amplification_warning"] is None
          and c["best"]["name"] == "composition-sgm", (c["best"]["name"], c["amplification_warning"]))
finish()
