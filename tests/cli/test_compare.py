#!/usr/bin/env python3
"""`rdpdyn compare` end to end: the JSON layout of the issue, stable analysis names, reasons for
every analysis that does not apply, best.R = pointwise minimum of the valid analyses, epsilon at
the report delta, HDF5 output read back, and the examples' expected applicability.

usage: test_compare.py RDPDYN SOURCE_DIR
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

import h5py  # noqa: E402

RDPDYN, SOURCE = sys.argv[1], sys.argv[2]
# The registry, as the tool lists it (no names copied here).
REGISTRY = json.loads(subprocess.run([RDPDYN, "analyses", "--json"], capture_output=True, text=True,
                                     check=True).stdout)
NAMES = [a["name"] for a in REGISTRY]
STATUS = {a["name"]: a["status"] for a in REGISTRY}
# Each published Ye & Shokri entry and the derived entry that improves it (docs/analyses.md s.3.2).
IMPROVES = {"ye-shokri-thm3.3-shifted": "ye-shokri-thm3.3", "ye-shokri-thm4.2-mixture": "ye-shokri-thm4.2",
            "ye-shokri-d6-optimal-split": "ye-shokri-d6"}
for derived, published in IMPROVES.items():
    check(f"registry: {derived} is derived, {published} published",
          STATUS.get(derived) == "derived" and STATUS.get(published) == "published", STATUS)
    note = next(a["status_note"] for a in REGISTRY if a["name"] == derived)
    check(f"registry: {derived} points at its derivation", note == f'docs/analyses.md, "{derived}"', note)


# What the outputs add to the status note of an entry whose numbers come through the FFT
# composition (analyses/analysis.hpp, kFftRoundOffLabel).
FFT_LABEL = "certified up to an assumed FFT round-off bound (docs/pld.md section 4)"
for entry in REGISTRY:
    fft = entry["name"] in ("composition-pld", "ganesh-group-pld", "poisson-as-if", "chua-shuffle-lower",
                            "noisysgd-window")
    check(f"registry: {entry['name']} {'carries' if fft else 'does not carry'} the FFT label",
          entry["status_note"].endswith(FFT_LABEL) == fft, entry["status_note"])


def max_rel(xs, refs):
    return max(abs(x - r) / abs(r) for x, r in zip(xs, refs))


# Statuses whose values must be at or above the privacy of every pair of neighbouring datasets the run
# admits (a disputed entry is left to its dispute; docs/analyses.md, "Status of an analysis").
BOUNDS = ("published", "derived")


def floors(example, analyses, R_floor, eps_floor=None):
    """Every applying published or derived entry at or above a concrete pair's exact R (and epsilon):
    floors computed independently of rdpdyn (tests/soundness/floors/values.py), not other routes of it."""
    for x in analyses.values():
        if not x["applies"] or x["status"] not in BOUNDS:
            continue
        check(f"{example}: {x['name']} R at or above the concrete pair's exact R",
              all(r >= f for r, f in zip(x["R"], R_floor)), (x["R"], R_floor))
        if eps_floor is not None:
            check(f"{example}: {x['name']} epsilon at or above the concrete pair's {eps_floor}",
                  x["epsilon"] >= eps_floor, x["epsilon"])


def rounded_up_from(xs, refs, steps):
    """The reported values are the formula's, rounded outward by the documented margin
    4 (K + 16) u relative plus one ulp (docs/analyses.md, "Outward rounding"): never below the
    60-digit value, and above it by at most the margin (the formula itself is within 1e-15)."""
    margin = 4 * (steps + 16) * 2.0**-53 + 4e-16
    return all(r * (1 - 1e-15) <= x <= r * (1 + margin + 1e-15) for x, r in zip(xs, refs))


def compare(example, *extra):
    r = subprocess.run([RDPDYN, "compare", os.path.join(SOURCE, "examples", example), *extra],
                       capture_output=True, text=True, timeout=900)
    check(f"{example}: exit 0", r.returncode == 0, r.stderr)
    return r


def layout(example, obj):
    names = [a["name"] for a in obj["analyses"]]
    check(f"{example}: every analysis listed in order", names == NAMES, names)
    for a in obj["analyses"]:
        if a["applies"]:
            check(f"{example}: {a['name']} has R per order", len(a["R"]) == len(obj["orders"]))
            check(f"{example}: {a['name']} R non-decreasing in alpha",
                  all(x <= y * (1 + 1e-12) for x, y in zip(a["R"], a["R"][1:])), a["R"])
        else:
            check(f"{example}: {a['name']} says why it does not apply", len(a["reason"]) > 10, a["reason"])
    by_name = {a["name"]: a for a in obj["analyses"]}
    # derived <= published compares two routes of this code (the improvement, not its soundness); the
    # derived entries' floors are floors() below, from concrete pairs of datasets.
    for derived, published in IMPROVES.items():
        d, p = by_name[derived], by_name[published]
        if p["applies"]:
            check(f"{example}: {derived} applies where {published} does", d["applies"], d["reason"])
            check(f"{example}: {derived} <= {published}", all(x <= y for x, y in zip(d["R"], p["R"])), (d["R"], p["R"]))
    for a in obj["analyses"]:
        check(f"{example}: {a['name']} carries its status", a["status"] in ("published", "derived", "disputed", "exact", "lower-bound", "heuristic", "released-lower-bound",
                                                                       "record-specific"),
              a["status"])
    # `exact` is the floor the analyses are measured against, never best; a lower bound and a bound
    # for some records only are not upper bounds on the run.
    valid = [a for a in obj["analyses"] if a["applies"] and a["status"] not in ("exact", "lower-bound", "record-specific", "heuristic", "released-lower-bound")
             and (a["status"] != "disputed" or obj["include_disputed"])]
    mins = [min(a["R"][j] for a in valid) for j in range(len(obj["orders"]))]
    check(f"{example}: best.R is the pointwise minimum of the eligible analyses", obj["best"]["R"] == mins)
    check(f"{example}: best names an eligible valid analysis", obj["best"]["name"] in [a["name"] for a in valid])
    return {a["name"]: a for a in obj["analyses"]}


with tempfile.TemporaryDirectory() as tmp:
    # Figure 1 of C21: full batch, strongly convex, Gaussian initialisation.
    obj = json.loads(compare("figure1_lambda1.toml", "--json").stdout)
    a = layout("figure1", obj)
    check("figure1: chourasia-cor1 applies", a["chourasia-cor1"]["applies"])
    check("figure1: pdi applies and equals Cor 1 (gamma = 1/2)",
          a["pdi"]["applies"] and all(abs(x - y) <= 1e-12 * y for x, y in zip(a["pdi"]["R"], a["chourasia-cor1"]["R"])))
    # The floor of every entry (pdi, the derived ye-shokri-d6-optimal-split, ...), independent of them: the
    # quadratic run of curvature lambda = 1 from a point start, exact R at orders 10, 20, 30 (mpmath;
    # tests/soundness/floors/values.py, "figure1_quadratic").
    floors("figure1", a, [0.0079199999733417, 0.015839999946683, 0.023759999920025])
    check("figure1: mini-batch analyses refuse with the sampling", "partition" in a["ye-shokri-thm3.3"]["reason"],
          a["ye-shokri-thm3.3"]["reason"])
    check("figure1: no delta, no epsilon", obj["delta"] is None and a["pdi"]["epsilon"] is None)
    # YS22 Thm D.6, eq. (112), as printed (60-digit evaluation, alpha = 10, 20, 30), and its derived
    # improvement about half of it.
    d6 = [0.015839316167441014511, 0.031678632334882029021, 0.047517948502323043532]
    check("figure1: ye-shokri-d6 = (112)", max_rel(a["ye-shokri-d6"]["R"], d6) < 1e-12, a["ye-shokri-d6"]["R"])
    check("figure1: the optimised split is about half of (112)",
          max_rel(a["ye-shokri-d6-optimal-split"]["R"], [x / 2 for x in d6]) < 1e-4, a["ye-shokri-d6-optimal-split"]["R"])

    # Figure 2 tight: squared loss with the LSI recursion and the optimal gamma.
    obj = json.loads(compare("figure2_tight.toml", "--json").stdout)
    a = layout("figure2_tight", obj)
    check("figure2_tight: pdi is the tightest", obj["best"]["name"] == "pdi", obj["best"]["name"])
    check("figure2_tight: pdi below Cor 2", all(p < c for p, c in zip(a["pdi"]["R"], a["chourasia-cor2"]["R"])))
    # C21 Thm 3 on the same run: the exact value (status exact) and the lower bound (status
    # lower-bound), neither best; the lower bound below every reported bound, pdi equal to the exact
    # value up to rounding (docs/math.md section 3.4).
    ex, lo = a["chourasia-thm3-exact"], a["chourasia-thm3-lower"]
    check("figure2_tight: C21 Thm 3 applies with its statuses", ex["applies"] and lo["applies"]
          and ex["status"] == "exact" and lo["status"] == "lower-bound", (ex["status"], lo["status"]))
    check("figure2_tight: the lower bound is below best", all(x < y for x, y in zip(lo["R"], obj["best"]["R"])))
    check("figure2_tight: pdi is C21 Thm 3's exact value", max_rel(a["pdi"]["R"], ex["R"]) < 1e-6, (a["pdi"]["R"], ex["R"]))

    # Gaussian-DP entries on the same run at delta = 1e-5 (docs/analyses.md section 3.6): shifted
    # interpolation equals the exact GDP parameter of the two Gaussian laws (C21 Thm 3:
    # mu^2 = 2 R_alpha/alpha = S_g^2/(2 sigma^2 n^2) (2 - eta)(1 - q^T)/(1 + q^T), q = 1 - eta), and
    # best is the exact (epsilon, delta) of the two laws (DRS Cor 2.13 inverted here in mpmath).
    import mpmath as mp
    mp.mp.dps = 40
    out = os.path.join(tmp, "figure2_gdp.h5")
    obj = json.loads(compare("figure2_tight.toml", "--json", "--set", "report.delta=1e-5", "-o", out).stdout)
    a = layout("figure2_gdp", obj)
    eta, sigma, n, Sg, T = mp.mpf("0.02"), mp.mpf("0.02"), 5000, 4, 1000
    q = (1 - eta) ** T
    mu_exact = mp.sqrt(Sg**2 / (2 * sigma**2 * n**2) * (2 - eta) * (1 - q) / (1 + q))
    d = lambda e: mp.ncdf(-e / mu_exact + mu_exact / 2) - mp.e**e * mp.ncdf(-e / mu_exact - mu_exact / 2)
    lo, hi = mp.mpf(0), mp.mpf(1)  # delta(0) > 1e-5 > delta(1); delta decreases: bisection
    for _ in range(150):
        lo, hi = (lo, (lo + hi) / 2) if d((lo + hi) / 2) <= mp.mpf("1e-5") else ((lo + hi) / 2, hi)
    eps_exact = hi
    for name in ("bok-su-altschuler-full-batch", "exact"):
        check(f"figure2_gdp: {name} mu = exact GDP parameter", abs(a[name]["mu"] - mu_exact) <= 1e-12 * mu_exact,
              (a[name]["mu"], float(mu_exact)))
        check(f"figure2_gdp: {name} epsilon by the GDP profile", a[name]["epsilon_orders"] == "gdp"
              and a[name]["best_order"] is None, a[name])
    check("figure2_gdp: gdp-composition is mu_1 sqrt(T)",
          abs(a["gdp-composition"]["mu"] - float(mp.sqrt(eta / 2) * Sg / (n * sigma) * mp.sqrt(T))) <= 1e-12, a["gdp-composition"])
    check("figure2_gdp: Renyi entries carry no mu", a["pdi"]["mu"] is None and a["composition-gaussian"]["mu"] is None)
    check("figure2_gdp: exact has status exact and is never best", a["exact"]["status"] == "exact"
          and obj["best"]["name"] != "exact", obj["best"])
    check("figure2_gdp: best = the exact (epsilon, delta) of the two laws (1e-6)",
          obj["best"]["epsilon"] >= eps_exact and abs(obj["best"]["epsilon"] - eps_exact) <= 1e-6 * eps_exact,
          (obj["best"], float(eps_exact)))
    check("figure2_gdp: best carries its mu", obj["best"]["mu"] is not None and obj["best"]["best_order"] is None, obj["best"])
    check("figure2_gdp: no epsilon of a bound below the exact one",
          all(x["epsilon"] >= eps_exact * (1 - 1e-12) for x in obj["analyses"]
              if x["applies"] and x["status"] != "lower-bound"))
    with h5py.File(out) as f:
        check("figure2_gdp: HDF5 mu", f["/analyses/bok-su-altschuler-full-batch"].attrs["mu"]
              == a["bok-su-altschuler-full-batch"]["mu"] and math.isnan(f["/analyses/pdi"].attrs["mu"]))
        check("figure2_gdp: HDF5 best mu", f["/best/R"].attrs["mu"] == obj["best"]["mu"])
        # The conversion attaining each epsilon (docs/analyses.md section 4), in JSON and HDF5.
        conversions = {x["name"]: x["conversion"] for x in obj["analyses"] if x["applies"]}
        check("figure2_gdp: conversion gdp for the Gaussian-DP entries, improved for the Renyi ones at this run",
              conversions["bok-su-altschuler-full-batch"] == "gdp" and conversions["exact"] == "gdp"
              and conversions["pdi"] == "improved" and conversions["composition-gaussian"] == "improved", conversions)
        check("figure2_gdp: best names its conversion", obj["best"]["conversion"] == "gdp", obj["best"])
        check("figure2_gdp: HDF5 conversion attributes", f["/analyses/pdi"].attrs["conversion"] == "improved"
              and f["/best/R"].attrs["conversion"] == "gdp"
              and "Asoodeh" in f.attrs["epsilon_conversion"], f["/analyses/pdi"].attrs.get("conversion"))
    table = compare("figure2_tight.toml", "--set", "report.delta=1e-5").stdout
    check("figure2_gdp table: mu column, exact GDP conversion", " mu " in table.splitlines()[0]
          and "exact GDP conversion" in table, table[:400])

    # Ye & Shokri FMNIST: shuffle once, target (3, 1e-5).
    out = os.path.join(tmp, "fmnist.h5")
    obj = json.loads(compare("ye_shokri_fmnist.toml", "--json", "-o", out).stdout)
    a = layout("fmnist", obj)
    check("fmnist: delta", obj["delta"] == 1e-5)
    check("fmnist: thm4.2 applies", a["ye-shokri-thm4.2"]["applies"], a["ye-shokri-thm4.2"]["reason"])
    check("fmnist: thm4.2 meets the paper's target epsilon = 3", a["ye-shokri-thm4.2"]["epsilon"] < 3.0,
          a["ye-shokri-thm4.2"]["epsilon"])
    # YS22 Thm 4.2, eq. (135), as printed = the authors' accountant shuffle_guarantee (60-digit values
    # at alpha = 1.5, 6, 64; tests/analyses/test_ye_shokri_2022.cpp has every order and the provenance).
    ref = {1.5: 0.056783561020717140326, 6: 0.74752719241710091685, 64: 14.909871029928404605}
    got = [a["ye-shokri-thm4.2"]["R"][obj["orders"].index(x)] for x in ref]
    check("fmnist: ye-shokri-thm4.2 = (135), rounded outward", rounded_up_from(got, list(ref.values()), 34800), got)
    # pdi averages over the random partition (docs/analyses.md, "pdi on mini-batch runs"): its RDP
    # curve gives 2.4412 against Thm 4.2's 2.4993, its Gaussian-DP profiles per placement averaged
    # over the draw 2.1805 (conversion "gdp-mixture"), below bok-su-altschuler-cyclic's 2.7712.
    check("fmnist: pdi is best, below the published thm4.2",
          obj["best"]["name"] == "pdi" and obj["best"]["epsilon"] < a["ye-shokri-thm4.2"]["epsilon"] * 0.99,
          (obj["best"]["name"], obj["best"]["epsilon"]))
    check("fmnist: pdi's epsilon by the averaged Gaussian-DP profiles, below bok-su-altschuler-cyclic",
          a["pdi"]["conversion"] == "gdp-mixture" and abs(a["pdi"]["epsilon"] / 2.18049 - 1) < 1e-4
          and a["pdi"]["epsilon"] < a["bok-su-altschuler-cyclic"]["epsilon"] * 0.9,
          (a["pdi"]["conversion"], a["pdi"]["epsilon"]))
    # The floor of every entry (pdi and the derived ye-shokri entries included), independent of them: the
    # quadratic run of curvature lambda = 0.02 with the record's batch uniform over the 29 positions of
    # the partition drawn once: (1/29) sum_j N(g_j, V) against N(0, V), its epsilon at 1e-5 (mpmath) and
    # R at the example's orders (quadrature; tests/soundness/floors/values.py, "ys_fmnist_mixture").
    floors("fmnist", a, [0.0201441272, 0.02689685924, 0.04046003438, 0.05410091744, 0.06782042873, 0.08161949809,
                         0.09549906485, 0.1094600776, 0.1376302816, 0.1661378792, 0.224197013, 0.3447200421,
                         0.4715653938, 0.746397246, 1.052687503], 0.6026939557)
    check("fmnist: best epsilon <= every valid epsilon",
          all(obj["best"]["epsilon"] <= x["epsilon"] * (1 + 1e-12) for x in obj["analyses"] if x["applies"]
              and x["status"] not in ("heuristic", "released-lower-bound", "lower-bound", "record-specific")))
    with h5py.File(out) as f:
        check("fmnist: HDF5 has every analysis", sorted(f["/analyses"].keys()) == sorted(NAMES))
        check("fmnist: HDF5 best", f["/best/R"].attrs["name"] == obj["best"]["name"])
        check("fmnist: HDF5 reasons", f["/analyses/chourasia-thm2"].attrs["reason"] == a["chourasia-thm2"]["reason"])
        check("fmnist: HDF5 epsilon", f["/analyses/ye-shokri-thm4.2"].attrs["epsilon"] == a["ye-shokri-thm4.2"]["epsilon"])

    # MNIST with a fixed partition: YS22 Thm 3.3, eq. (91), as printed at the worst batch (60-digit
    # values at alpha = 1.5, 8, 64); the shifted recursion improves it by 0.12%.
    obj = json.loads(compare("ye_shokri_mnist_partition.toml", "--json").stdout)
    a = layout("mnist", obj)
    ref = {1.5: 0.32684942254311000624, 8: 1.7431969202299200333, 64: 13.945575361839360266}
    got = [a["ye-shokri-thm3.3"]["R"][obj["orders"].index(x)] for x in ref]
    check("mnist: ye-shokri-thm3.3 = (91), rounded outward", rounded_up_from(got, list(ref.values()), 2900), got)
    check("mnist: the shifted recursion is below (91)",
          all(x < y for x, y in zip(a["ye-shokri-thm3.3-shifted"]["R"], a["ye-shokri-thm3.3"]["R"])))
    # The floor of every entry (the derived ye-shokri-thm3.3-shifted and pdi included), independent of
    # them: the quadratic run of curvature lambda = 0.08, the record in the last batch of the fixed
    # partition: a Gaussian pair of mu = 0.26571078080879, epsilon 0.990417070888 at 1e-5, R = alpha mu^2/2
    # (mpmath; tests/soundness/floors/values.py, "ys_mnist_partition_worst").
    floors("mnist", a, [0.052951664278516, 0.070602219038021, 0.10590332855703, 0.14120443807604, 0.17650554759505,
                        0.21180665711406, 0.24710776663307, 0.28240887615208, 0.3530110951901, 0.42361331422813,
                        0.56481775230417, 0.84722662845626, 1.1296355046083, 1.6944532569125, 2.2592710092167],
           0.990417070888)
    # Shifted interpolation for the cyclic batches (Bok, Su & Altschuler 2024, NoisyCGD): mu_1 = 2/3.08
    # (noise multiplier 3.08, replace), c = 1 - eta lambda = 0.94, l = 29, E = 100; the formula
    # mu_1 sqrt(1 + c^56 (1-c^2)/(1-c^29)^2 (1-c^2871)/(1+c^2871)) by mpmath at 30 digits:
    # 0.651048507773501374 (docs/analyses.md, "bok-su-altschuler-cyclic").
    cyc = a["bok-su-altschuler-cyclic"]
    check("mnist: bok-su-altschuler-cyclic applies", cyc["applies"], cyc["reason"])
    check("mnist: bok-su-altschuler-cyclic mu, rounded outward",
          rounded_up_from([cyc["mu"]], [0.651048507773501374], 2900), cyc["mu"])
    check("mnist: the cyclic bound is below the GDP composition mu_1 sqrt(100)",
          cyc["mu"] < a["gdp-composition"]["mu"] and cyc["epsilon"] < a["gdp-composition"]["epsilon"])
    # pdi's shifted-divergence bound per placement reproduces that formula at the last batch, so its R
    # and its Gaussian-DP epsilon are at or below the entry's (equal up to the outward margins).
    check("mnist: pdi at or below bok-su-altschuler-cyclic in R and epsilon",
          all(x <= y for x, y in zip(a["pdi"]["R"], cyc["R"])) and a["pdi"]["epsilon"] <= cyc["epsilon"]
          and a["pdi"]["conversion"] == "gdp" and obj["best"]["name"] == "pdi",
          (a["pdi"]["epsilon"], cyc["epsilon"], a["pdi"]["conversion"], obj["best"]["name"]))

    # Poisson batches (DP-SGD accounting example): the cyclic theorem does not cover them.
    out = os.path.join(tmp, "dpsgd.h5")
    obj = json.loads(compare("dpsgd_accounting.toml", "--json", "-o", out).stdout)
    a = {x["name"]: x for x in obj["analyses"]}
    check("dpsgd: bok-su-altschuler-cyclic refuses Poisson batches, naming NoisySGD",
          not a["bok-su-altschuler-cyclic"]["applies"] and "NoisySGD" in a["bok-su-altschuler-cyclic"]["reason"],
          a["bok-su-altschuler-cyclic"]["reason"])
    # The FFT round-off bound is assumed, not proved (docs/pld.md section 4): composition-pld's profile
    # comes through the FFT composition, so its status note says so in JSON, HDF5 and the table; an
    # RDP entry's does not.
    pld = a["composition-pld"]
    check("dpsgd: composition-pld applies by its PLD", pld["applies"] and pld["conversion"] == "pld",
          (pld["applies"], pld.get("conversion")))
    check("dpsgd: composition-pld's status note labels the assumed FFT round-off bound (JSON)",
          pld["status_note"] == FFT_LABEL, pld["status_note"])
    check("dpsgd: composition-sgm (RDP, no FFT) carries no FFT label",
          a["composition-sgm"]["applies"] and FFT_LABEL not in a["composition-sgm"]["status_note"],
          a["composition-sgm"]["status_note"])
    with h5py.File(out, "r") as f:
        check("dpsgd: the label in HDF5 too", f["/analyses/composition-pld"].attrs["status_note"] == FFT_LABEL,
              f["/analyses/composition-pld"].attrs["status_note"])
    table = compare("dpsgd_accounting.toml").stdout
    check("dpsgd table: composition-pld's FFT label beside it",
          f"published composition-pld: {FFT_LABEL}" in table, table[-1500:])

    # YS22 Thm D.5 (Balle et al.): the last batch a published bound, the first batch for its own
    # records only (record-specific), smaller but never best.
    obj = json.loads(compare("ye_shokri_mnist_partition.toml", "--json").stdout)
    a = {x["name"]: x for x in obj["analyses"]}
    first, last = a["ye-shokri-d5-first-batch"], a["ye-shokri-d5-last-batch"]
    check("mnist: Thm D.5 applies, last batch published, first batch record-specific",
          first["applies"] and last["applies"] and last["status"] == "published"
          and first["status"] == "record-specific", (first["reason"], last["reason"]))
    check("mnist: the first-batch value is below best yet not best",
          all(x < y for x, y in zip(first["R"], obj["best"]["R"])) and obj["best"]["name"] != first["name"],
          obj["best"]["name"])

    # Langevin: GTU Lemma C.1 = alpha S_g^2 t/(4 sigma^2 n^2) = alpha 1e-3 for t = 10, sigma = 0.1,
    # n = 1000, S_g = 2 (docs/analyses.md section 3.7).
    obj = json.loads(compare("schedule_langevin.toml", "--json").stdout)
    a = layout("langevin", obj)
    c1 = a["ganesh-lemma-c1"]
    check("langevin: ganesh-lemma-c1 applies", c1["applies"], c1["reason"])
    check("langevin: Lemma C.1 = alpha 1e-3, rounded outward", rounded_up_from(c1["R"], [x * 1e-3 for x in obj["orders"]], 200),
          c1["R"])

    check("langevin (constant c): ganesh-lemma-i2 refuses, naming the declaration",
          not a["ganesh-lemma-i2"]["applies"] and 'lsi.kind = "strongly-convex"' in a["ganesh-lemma-i2"]["reason"],
          a["ganesh-lemma-i2"]["reason"])

    # Strongly convex Langevin: GTU Lemma I.2 = alpha S_g^2/(lambda sigma^2 n^2) (1 - e^{-lambda t/2})
    # = alpha 8e-4 (1 - e^{-2.5}); pdi (c = lambda/sigma^2, optimal gamma) is best, 0.5387 of it
    # (docs/analyses.md, "ganesh-lemma-i2").
    obj = json.loads(compare("langevin_strongly_convex.toml", "--json").stdout)
    a = layout("langevin_strongly_convex", obj)
    i2 = a["ganesh-lemma-i2"]
    check("strongly convex langevin: ganesh-lemma-i2 applies", i2["applies"], i2["reason"])
    check("strongly convex langevin: Lemma I.2 = alpha 8e-4 (1 - e^{-2.5}), rounded outward",
          rounded_up_from(i2["R"], [x * 8e-4 * -math.expm1(-2.5) for x in obj["orders"]], 200), i2["R"])
    check("strongly convex langevin: pdi at or below Lemma I.2",
          all(p <= q for p, q in zip(a["pdi"]["R"], i2["R"])), (a["pdi"]["R"], i2["R"]))
    check("strongly convex langevin: pdi is best", obj["best"]["name"] == "pdi", obj["best"]["name"])

    # The table marks the tightest valid analysis.
    table = compare("ye_shokri_mnist_partition.toml").stdout
    check("table marks the best", " *" in table and "tightest valid" in table, table[-400:])
    # Compact by default (epsilon before the R columns, four orders, rounded labels: the Fashion-MNIST
    # rows were 277 characters wide); --wide shows every order.
    table = compare("ye_shokri_fmnist.toml").stdout
    header = table.splitlines()[0]
    rows = [line for line in table.splitlines()[1:] if " yes " in line]
    check("compact table: epsilon before R, four orders, rows under 150 characters",
          header.index("epsilon") < header.index("R@") and header.count("R@") <= 4
          and max(len(r) for r in rows) < 150 and "--wide" in table, header)
    # The cosine example's rows were 722 wide, with columns named R@1.5844184160889656; its constants
    # and statuses were single lines of 400 and 1152 characters.
    table = compare("schedule_cosine.toml").stdout
    lines = table.splitlines()
    rows = [line for line in lines[1:] if " yes " in line or line.startswith("(best.R: eligible minimum)")]
    check("cosine example: rounded order labels, numeric rows under 150 characters, best.R a row",
          re.fullmatch(r"(\s+R@[0-9.]{1,6})+", lines[0][lines[0].index(" R@"):]) is not None
          and max(len(r) for r in rows) < 150 and any(r.startswith("(best.R: eligible minimum)") for r in rows), lines[0])
    check("cosine example: the footer's constants and statuses one a line (none over 200 characters)",
          all(len(line) < 200 for line in lines[lines.index("status:"):]) and "\n  lsi.lambda = 1 (" in table,
          [len(line) for line in lines[lines.index("status:"):]] if "status:" in lines else table[-600:])
    wide = compare("ye_shokri_fmnist.toml", "--wide").stdout
    obj = json.loads(compare("ye_shokri_fmnist.toml", "--json").stdout)
    check("--wide: every order", wide.splitlines()[0].count("R@") == len(obj["orders"]), wide.splitlines()[0])

    # A&T plateau example.
    obj = json.loads(compare("altschuler_talwar_plateau.toml", "--json").stdout)
    a = layout("plateau", obj)
    check("plateau: an A&T bound applies", any(a[n]["applies"] for n in NAMES if n.startswith("altschuler")),
          {n: a[n]["reason"] for n in NAMES if n.startswith("altschuler")})
    check("plateau: (B.2) is disputed, with where", a["altschuler-talwar-b2"]["status"] == "disputed"
          and "Step 3b" in a["altschuler-talwar-b2"]["status_note"], a["altschuler-talwar-b2"])
    check("plateau: a disputed bound is not best", obj["best"]["status"] != "disputed", obj["best"])
    check("plateau: (B.2) would be tighter than best", a["altschuler-talwar-b2"]["epsilon"] < obj["best"]["epsilon"])
    table = compare("altschuler_talwar_plateau.toml").stdout
    check("plateau table: status column and meaning", "disputed" in table and "suspected gap" in table, table)
    # With include_disputed, (B.2) may be best and the output says so.
    text = open(os.path.join(SOURCE, "examples", "altschuler_talwar_plateau.toml")).read()
    text = text.replace("[report]\n", "[report]\ninclude_disputed = true\n")
    included = os.path.join(tmp, "plateau_disputed.toml")
    open(included, "w").write(text)
    r = subprocess.run([RDPDYN, "compare", included, "--json"], capture_output=True, text=True, timeout=900)
    obj2 = json.loads(r.stdout)
    layout("plateau-included", obj2)
    check("plateau included: (B.2) is best, marked disputed",
          obj2["best"]["name"] == "altschuler-talwar-b2" and obj2["best"]["status"] == "disputed"
          and obj2["include_disputed"], obj2["best"])
    table = subprocess.run([RDPDYN, "compare", included], capture_output=True, text=True, timeout=900).stdout
    check("plateau included table warns", "DISPUTED" in table, table[-600:])

    # Quadratic loss: the exact divergence is a lower bound of every valid analysis, and the
    # tool's PDI (exact LSI schedule, optimal gamma) attains it.
    obj = json.loads(compare("quadratic_anisotropic.toml", "--json").stdout)
    a = layout("quadratic", obj)
    exact = obj["exact"]["R"]
    for x in obj["analyses"]:
        if x["applies"]:
            check(f"quadratic: {x['name']} >= exact divergence", all(r >= e * (1 - 1e-9) for r, e in zip(x["R"], exact)),
                  (x["R"], exact))
    check("quadratic: pdi = exact (1e-6)", all(abs(p - e) <= 1e-6 * e for p, e in zip(a["pdi"]["R"], exact)))

finish()
