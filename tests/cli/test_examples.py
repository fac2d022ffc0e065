#!/usr/bin/env python3
"""Runs every example configuration and checks the curves each one exists to reproduce.

Figure 1 of C21: the solver's R equals Cor 1 (gamma = 1/2) for lambda in {1, 2, 4}, and the
composition baseline alpha S_g^2 eta K / (4 n^2 sigma^2) (C21 App. E) is there for every K.
Figure 2 of C21: R equals Cor 2; the Thm 3 lower bound and exact divergence are there and sit
below; the tight run (LSI recursion + optimal gamma) equals the exact divergence.

usage: test_examples.py RDPDYN SOURCE_DIR
"""
import glob
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

import h5py
import numpy as np

RDPDYN, SOURCE = sys.argv[1], sys.argv[2]
# Examples with no step size, sensitivity or LSI model: `compare` only (the PDI refuses them).
ACCOUNTING_ONLY = {"dpsgd_accounting", "dpsgd_cifar10", "shuffled_dpsgd"}


def solve(path, out):
    r = subprocess.run([RDPDYN, "solve", path, "-o", out], capture_output=True, text=True, timeout=600)
    check(f"{os.path.basename(path)} runs", r.returncode == 0, r.stderr)
    return h5py.File(out, "r")


def max_rel(a, b):
    mask = b != 0
    return float(np.max(np.abs(a[mask] - b[mask]) / np.abs(b[mask])))


Sg, n, eta, sigma = 4.0, 5000.0, 0.02, 0.02
with tempfile.TemporaryDirectory() as tmp:
    examples = sorted(glob.glob(os.path.join(SOURCE, "examples", "*.toml")))
    check("examples exist", len(examples) >= 7, examples)
    for path in examples:
        name = os.path.basename(path)[:-5]
        if "\n[sweep]" in open(path, encoding="utf-8").read():
            # A surface: `rdpdyn sweep` only (tests/cli/test_sweep.py); solve refuses it, exit 2.
            r = subprocess.run([RDPDYN, "solve", path], capture_output=True, text=True, timeout=600)
            check(f"{name}: solve refuses the [sweep] table (exit 2)", r.returncode == 2, (r.returncode, r.stderr))
            continue
        if name in ACCOUNTING_ONLY:
            # Configured for accounting alone (tests/cli/test_accounting.py): solve refuses, exit 2,
            # naming what the PDI lacks, and leaves no output.
            out = os.path.join(tmp, name + ".h5")
            r = subprocess.run([RDPDYN, "solve", path, "-o", out], capture_output=True, text=True, timeout=600)
            check(f"{name}: solve refuses (exit 2)", r.returncode == 2, (r.returncode, r.stderr))
            check(f"{name}: the refusal names the missing keys (and an add/remove adjacency)",
                  ("domain.adjacency" in r.stderr or name == "shuffled_dpsgd") and "algorithm.eta" in r.stderr
                  and "[lsi]" in r.stderr, r.stderr)
            check(f"{name}: no output left", not os.path.exists(out))
            continue
        with solve(path, os.path.join(tmp, name + ".h5")) as f:
            R, orders, steps = f["/R"][...], f["/orders"][...], f["/step"][...]
            check(f"{name}: finite, non-negative", np.all(np.isfinite(R)) and np.all(R >= 0))
            check(f"{name}: non-decreasing in alpha", np.all(np.diff(R, axis=1) >= -1e-15 * R[:, 1:]))
            cf = {k: f["/closed_forms/" + k][...] for k in f["/closed_forms"]}
            if name.startswith("figure1_lambda"):
                lam = float(name[len("figure1_lambda"):])
                K = steps[:, None].astype(float)
                cor1 = orders * Sg**2 / (lam * sigma**2 * n**2) * (1 - np.exp(-lam * eta * K / 2))
                comp = orders * Sg**2 * eta * K / (4 * n**2 * sigma**2)
                check(f"{name}: R = Cor 1 (C21)", max_rel(R, cor1) < 1e-12, max_rel(R, cor1))
                # Upper bounds are rounded outward by 4 (K + 16) u relative (docs/math.md section 6).
                check(f"{name}: cor1 curve", max_rel(cf["cor1"], cor1) < 1e-12 and np.all(cf["cor1"] >= cor1 * (1 - 1e-15)))
                check(f"{name}: composition curve", max_rel(cf["composition"], comp) < 1e-12)
                check(f"{name}: orders", list(orders) == [10, 20, 30])
            if name.startswith("figure2"):
                K = steps[:, None].astype(float)
                exact = orders * Sg**2 / (4 * sigma**2 * n**2) * (2 - eta) * (1 - (1 - eta)**K) / (1 + (1 - eta)**K)
                lower = orders * Sg**2 / (4 * sigma**2 * n**2) * (1 - np.exp(-eta * K))
                cor2 = orders * Sg**2 / ((2 - eta) * sigma**2 * n**2) * (1 - np.exp(-(2 - eta) * eta * K / 2))
                check(f"{name}: thm3-exact curve", max_rel(cf["thm3-exact"], exact) < 1e-10)
                check(f"{name}: thm3-lower curve", max_rel(cf["thm3-lower"], lower) < 1e-10)
                check(f"{name}: cor2 curve", max_rel(cf["cor2"], cor2) < 1e-12)
                check(f"{name}: R >= exact divergence (soundness)", np.all(R >= exact * (1 - 1e-12)))
                if name == "figure2_squared_loss":
                    check(f"{name}: R = Cor 2", max_rel(R, cor2) < 1e-12, max_rel(R, cor2))
                else:
                    check(f"{name}: R = exact divergence", max_rel(R, exact) < 1e-9, max_rel(R, exact))
            if name == "quadratic_anisotropic":
                # Exact LSI schedule + optimal gamma = worst-case exact divergence (point start,
                # eta (h_min + h_max) <= 2); every bound is at or above the exact values.
                exact = cf["quadratic-exact"]
                check(f"{name}: R = worst-case exact divergence (1e-6)", max_rel(R[1:], exact[1:]) < 1e-6, max_rel(R[1:], exact[1:]))
                check(f"{name}: R >= exact (worst pair)", np.all(R >= exact * (1 - 1e-12)))
                check(f"{name}: worst pair >= the configured pair", np.all(exact >= cf["quadratic-exact-pair"] * (1 - 1e-12)))
            if name.startswith("ye_shokri"):
                # Composition with the record in every batch: per step 2 alpha / z^2 for a DP-SGD noise
                # multiplier z (Ye & Shokri 2022 App. F: alpha eta S_g^2 / (4 sigma^2 b^2) = 2 alpha / z^2).
                z = 3.01 if "fmnist" in name else 3.08
                comp = steps[-1] * 2 * orders / z**2
                check(f"{name}: composition baseline", max_rel(cf["composition"][-1], comp) < 1e-10, cf["composition"][-1])
                check(f"{name}: no full-batch closed forms", "thm1" not in cf and "thm2" not in cf, list(cf))
            if name.startswith("ye_shokri") or name.startswith("altschuler"):
                check(f"{name}: epsilon reported", "epsilon" in f.attrs and float(f.attrs["epsilon"]) > 0, dict(f.attrs).keys())
            if name == "pdi_decaying_sensitivity":
                # The PDI of C21 eq. (13) with S_v(t) = S0 e^{-t/tau}, sigma, c constant, R_0 = 0
                # (docs/config.md, kind = "pdi"). Along the straight characteristics of a fixed gamma,
                # w' = a2(t) - a1 w integrates to
                #   w(T) = S0^2 / (4 gamma sigma^2) (e^{-2T/tau} - e^{-a1 T}) / (a1 - 2/tau),  a1 = 2 (1-gamma) sigma^2 c,
                # and S0^2 tau (1 - e^{-2T/tau}) / (8 sigma^2) at gamma = 1. The optimal gamma is below both.
                S0, tau, sg, c, T = 0.002, 2.0, 0.1, 5.0, 10.0
                t = f["/time"][...] if "/time" in f else None

                def w_fixed(gamma):
                    if gamma == 1.0:
                        return S0**2 * tau * -math.expm1(-2 * T / tau) / (8 * sg**2)
                    a1 = 2 * (1 - gamma) * sg**2 * c
                    return S0**2 / (4 * gamma * sg**2) * (math.exp(-2 * T / tau) - math.exp(-a1 * T)) / (a1 - 2 / tau)
                check(f"{name}: ends at T", abs(f["/time"][-1] - T) < 1e-12 if "/time" in f else True)
                check(f"{name}: optimal gamma below gamma = 1/2 and 1", np.all(R[-1] <= orders * w_fixed(0.5))
                      and np.all(R[-1] <= orders * w_fixed(1.0)), (R[-1], orders * w_fixed(0.5)))
                check(f"{name}: R linear in alpha", max_rel(R[-1] / orders, np.full(len(orders), R[-1][0] / orders[0])) < 1e-12)
                check(f"{name}: R at T (alpha = 2) = 1.25489048e-4 as docs/config.md prints", abs(R[-1][0] / 1.25489048e-4 - 1) < 1e-8, R[-1][0])
                for engine in ("characteristics", "finite-difference"):
                    out2 = os.path.join(tmp, name + "_half_" + engine + ".h5")
                    r = subprocess.run([RDPDYN, "solve", path, "-o", out2, "--set", "analysis.gamma=0.5",
                                        "--set", "analysis.engine=" + engine], capture_output=True, text=True, timeout=600)
                    check(f"{name} at gamma = 1/2 ({engine}) runs", r.returncode == 0, r.stderr)
                    with h5py.File(out2, "r") as g:
                        Rh = g["/R"][-1]
                        check(f"{name}: gamma = 1/2 ({engine}) is the exact integral of the PDI (1e-8), above it",
                              max_rel(Rh, orders * w_fixed(0.5)) < 1e-8 and np.all(Rh >= orders * w_fixed(0.5)),
                              (Rh, orders * w_fixed(0.5)))
            if name == "langevin_strongly_convex":
                # c = lambda/sigma^2 (docs/analyses.md, "ganesh-lemma-i2"): the optimal gamma has the closed
                # form of the seed-001 digest section 4B item 10, t_1 = 1/(2 lambda); C21 Thm 2 (gamma = 1/2)
                # with this c and GTU Lemma I.2 sit above it.
                lam, sg, Sv, T = 0.5, 0.1, 2.0 / 1000.0, 10.0
                t1 = 1 / (2 * lam)
                opt = orders * Sv**2 / (2 * sg**2 * lam) * (1 - 0.5 * math.exp(-lam * (T - t1)))**2
                thm2 = orders * Sv**2 / (2 * lam * sg**2) * -math.expm1(-lam * T)
                i2 = orders * Sv**2 / (lam * sg**2) * -math.expm1(-lam * T / 2)
                check(f"{name}: R at T = the optimal-gamma closed form (1e-9)", max_rel(R[-1], opt) < 1e-9, (R[-1], opt))
                check(f"{name}: thm2 curve with c = lambda/sigma^2", max_rel(cf["thm2"][-1], thm2) < 1e-12, cf["thm2"][-1])
                check(f"{name}: R <= thm2 <= GTU Lemma I.2", np.all(R[-1] <= cf["thm2"][-1]) and np.all(thm2 <= i2), (R[-1], i2))
            if name == "transport_table":
                # The table's own value at its nodes bounds R at t = 0 there.
                check(f"{name}: initial row at alpha = 1.5", abs(R[0, 0] - 0.0021) < 1e-15, R[0, 0])
                check(f"{name}: contraction", np.all(R[-1] < R[0]))

    # The last iterate of sampled batches on a strongly convex loss (docs/analyses.md section 3.4c):
    # noisysgd-window is best, far below the composition of every step (measured 2.04 against 6.76).
    import json  # noqa: E402
    r = subprocess.run([RDPDYN, "compare", os.path.join(SOURCE, "examples", "noisysgd_window.toml"), "--json", "--quiet"],
                       capture_output=True, text=True, timeout=600)
    c = json.loads(r.stdout)
    a = {x["name"]: x for x in c["analyses"]}
    check("noisysgd_window: noisysgd-window is best, below a third of composition-pld",
          c["best"]["name"] == "noisysgd-window" and 1.5 < c["best"]["epsilon"] < a["composition-pld"]["epsilon"] / 3,
          (c["best"]["name"], c["best"]["epsilon"], a["composition-pld"]["epsilon"]))

finish()
