#!/usr/bin/env python3
"""End-to-end tests of the rdpdyn command line: exit codes, error messages naming key/value/rule,
no partial output, HDF5 layout and metadata read back with h5py, JSON summary.

usage: test_cli.py RDPDYN SOURCE_DIR      (run by ctest; prints 'N passed, N failed')
"""
import atexit
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

import h5py
import numpy as np

RDPDYN, SOURCE = sys.argv[1], sys.argv[2]
EXAMPLES = os.path.join(SOURCE, "examples")


def run(*args, env=None):
    return subprocess.run([RDPDYN, *args], capture_output=True, text=True, timeout=300,
                          env=None if env is None else {**os.environ, **env})


BASE = """
[orders]
values = [2, 10, 30]
[algorithm]
kind = "noisy-gd"
steps = 100
eta = 0.02
sigma = 0.02
n = 5000
sensitivity = 4
[lsi]
kind = "strongly-convex"
lambda = 1
beta = 4
"""

with tempfile.TemporaryDirectory() as tmp:
    # --version and --help
    r = run("--version")
    check("version", r.returncode == 0 and r.stdout.startswith("rdpdyn "), r.stdout + r.stderr)
    r = run("--help")
    check("help", r.returncode == 0 and "solve" in r.stdout and "validate" in r.stdout, r.stdout)
    r = run("frobnicate")
    check("unknown subcommand exits 2", r.returncode == 2, r.stderr)
    # `rdpdyn`, `-h` and `help` print the help (they used to say "A subcommand is required"); `help
    # COMMAND` the command's, with the program name in its usage line and the defaults shown.
    for args in ([], ["-h"], ["help"]):
        r = run(*args)
        check(f"rdpdyn {' '.join(args)}: the help, exit 0",
              r.returncode == 0 and "Usage: rdpdyn" in r.stdout and "calibrate" in r.stdout, (r.returncode, r.stderr))
    r = run("help", "calibrate")
    check("help calibrate: usage with the program name, defaults shown",
          r.returncode == 0 and "Usage: rdpdyn calibrate" in r.stdout and "--max-steps INT=1048576" in r.stdout,
          r.stdout)
    r = run("plot", "-h")
    check("plot -h: the default dpi", r.returncode == 0 and "=100" in r.stdout, r.stdout)
    r = run("help", "slove")
    check("help of an unknown command: exit 2, did you mean", r.returncode == 2 and "'solve'" in r.stderr, r.stderr)

    # Bad input: message names key, value and rule; exit 2; no output file (nor temporary).
    bad_cases = [
        ("sigma = 0.02", "sigma = -0.5", "'algorithm.sigma' = -0.5", "> 0"),
        ("values = [2, 10, 30]", "values = [0.5, 10, 30]", "'orders.values[0]' = 0.5", "> 1"),
        ("n = 5000", "n = 0", "'algorithm.n' = 0", ">= 1"),
        ("steps = 100", "steps = -1", "'algorithm.steps' = -1", ">= 0"),
        ("eta = 0.02", "eta = 0.5", "'algorithm.eta' = 0.5", "1/beta"),
        ("beta = 4", "beta = 4\ncolour = 1", "'lsi.colour' = 1", "unknown key"),
        ("sigma = 0.02", "sigma = nan", "'algorithm.sigma' = nan", "finite"),
        ("n = 5000", "n = \"many\"", "'algorithm.n' = \"many\"", "must be a number"),
    ]
    for old, new, key_value, rule in bad_cases:
        cfg = os.path.join(tmp, "bad.toml")
        with open(cfg, "w") as f:
            f.write(BASE.replace(old, new))
        out = os.path.join(tmp, "bad.h5")
        r = run("solve", cfg, "-o", out)
        check(f"bad input {new!r}: exit 2", r.returncode == 2, f"rc={r.returncode} {r.stderr}")
        check(f"bad input {new!r}: message", key_value in r.stderr and rule in r.stderr, r.stderr)
        check(f"bad input {new!r}: no output", not any(n.startswith("bad.h5") for n in os.listdir(tmp)),
              os.listdir(tmp))
    table = BASE + "[initial]\nkind = \"table\"\nalpha = [2, 10, 40]\nR = [0.1, 0.3, 0.2]\n"
    cfg = os.path.join(tmp, "table.toml")
    with open(cfg, "w") as f:
        f.write(table)
    r = run("solve", cfg, "-o", os.path.join(tmp, "t.h5"))
    check("non-monotone table", r.returncode == 2 and "'initial.R[2]' = 0.2" in r.stderr, r.stderr)
    # solve: the epsilon line with [report] delta; with -o no table unless --table.
    eps_dir = tempfile.mkdtemp()  # not under tmp: the temporaries check below lists it
    atexit.register(shutil.rmtree, eps_dir, True)
    eps_cfg = os.path.join(eps_dir, "eps.toml")
    with open(eps_cfg, "w") as f:
        f.write(BASE + "[report]\ndelta = 1e-5\n")
    r = run("solve", eps_cfg)
    check("solve with [report] delta: the epsilon line", r.returncode == 0 and "epsilon = " in r.stdout
          and "at delta = 1e-05" in r.stdout, r.stdout)
    # Numbers for people to their significant digits (the order was printed as 10.11228842497).
    check("solve: the epsilon line's order rounded (at most 4 decimals)",
          re.search(r"epsilon = [0-9.]+ at delta = 1e-05 \(order [0-9]+(\.[0-9]{1,4})?, [a-z]+ conversion\)", r.stdout),
          r.stdout)
    r = run("solve", eps_cfg, "-o", os.path.join(eps_dir, "eps.h5"))
    check("solve -o: no table", r.returncode == 0 and "R (rdpdyn)" not in r.stdout and "--table" in r.stdout,
          r.stdout)
    r = run("solve", eps_cfg, "-o", os.path.join(eps_dir, "eps2.h5"), "--table")
    check("solve -o --table: the table", r.returncode == 0 and "R (rdpdyn)" in r.stdout, r.stdout)
    enum_cfg = os.path.join(eps_dir, "enum.toml")
    with open(enum_cfg, "w") as f:
        f.write(BASE.replace('kind = "strongly-convex"', 'kind = "strongly_convex"'))
    r = run("solve", enum_cfg)
    check("an enumeration's near miss: did you mean", r.returncode == 2 and 'did you mean "strongly-convex"' in r.stderr,
          r.stderr)
    r = run("calibrate", eps_cfg, "--epsilon", "1", "--delta", "1e-5", "--analysis", "pdf")
    check("calibrate --analysis pdf: did you mean \"pdi\"", r.returncode == 2 and 'did you mean "pdi"' in r.stderr, r.stderr)
    r = run("calibrate", os.path.join(EXAMPLES, "figure1_lambda1.toml"), "--epsilon", "1", "--delta", "1e-5",
            "--for", "steps")
    check("calibrate --for steps on a saturating bound: exit 2, its epsilon to six digits rounded up",
          r.returncode == 2 and "'--max-steps' = 1048576" in r.stderr and "(epsilon = 0.124735)" in r.stderr, r.stderr)
    r = run("solve", eps_cfg, "--set", 'algorithm.eta={kind="cosine",from=0.1}')
    check("an inline schedule's unknown key is named, with the key that names the preset",
          r.returncode == 2 and "'algorithm.eta.kind' = \"cosine\": unknown key of an inline schedule" in r.stderr
          and "schedule = \"cosine\"" in r.stderr, r.stderr)
    # validate CONFIG: R against the closed forms at the user's settings; exit 1 on a contradiction.
    tight = os.path.join(EXAMPLES, "figure2_tight.toml")
    r = run("validate", tight)
    check("validate CONFIG: the exact form equals R, exit 0",
          r.returncode == 0 and re.search(r"thm3-exact +exact +[-0-9.e+]+ +1000 .* equal", r.stdout), r.stdout)
    r = run("validate", tight, "--tolerance", "1e-15")
    check("validate CONFIG --tolerance 1e-15: R's outward rounding puts it above the exact form, not below: exit 0",
          r.returncode == 0 and re.search(r"thm3-exact +exact +[0-9.e+-]+ .* above \(not tight\)", r.stdout)
          and "CONTRADICTS" not in r.stdout, (r.returncode, r.stdout))
    # gamma = 1/2 is not the theorem's: R lies 2% above C21 Thm 3's exact divergence, which is no
    # contradiction (it used to exit 1 with CONTRADICTS); below it would be.
    r = run("validate", os.path.join(EXAMPLES, "figure2_squared_loss.toml"))
    check("validate: R above an exact form is 'above (not tight)', exit 0",
          r.returncode == 0 and re.search(r"thm3-exact +exact +2\.0\d*e-02 .* above \(not tight\)", r.stdout),
          (r.returncode, r.stdout))
    r = run("solve", os.path.join(tmp, "missing.toml"))
    check("missing config exits 2 with the system's reason", r.returncode == 2 and "cannot be read: No such file or directory" in r.stderr, r.stderr)
    r = run("solve", os.path.join(EXAMPLES, "figure1_lambda1.toml"), "-o", os.path.join(tmp, "no", "dir.h5"))
    check("missing output directory exits 2", r.returncode == 2 and "directory" in r.stderr, r.stderr)

    # A good run: HDF5 layout, metadata and values read back; JSON agrees with the file.
    cfg = os.path.join(EXAMPLES, "figure2_tight.toml")
    out = os.path.join(tmp, "fig2.h5")
    r = run("solve", cfg, "-o", out, "--json")
    check("solve exit 0", r.returncode == 0, r.stderr)
    summary = json.loads(r.stdout)
    with h5py.File(out, "r") as f:
        R = f["/R"][...]
        orders = f["/orders"][...]
        check("R shape", R.shape == (1001, 3), R.shape)
        check("t", abs(f["/t"][-1] - 20.0) < 1e-12, f["/t"][-1])
        check("step", list(f["/step"][:3]) == [0, 1, 2], f["/step"][:3])
        attrs = f.attrs
        with open(cfg) as c:
            check("config attribute is the file", attrs["config"] == c.read())
        check("schema version", int(attrs["schema_version"]) == 5)
        check("command attr", attrs["command"] == "solve", attrs.get("command"))
        check("engine attr", attrs["engine"] == "characteristics", attrs["engine"])
        check("gamma mode attr", attrs["gamma_mode"] == "optimal", attrs["gamma_mode"])
        check("program version attr", attrs["program_version"] == run("--version").stdout.split()[1])
        check("units attr", "nats" in attrs["units_R"], attrs["units_R"])
        names = set(f["/closed_forms"].keys())
        check("closed forms present", {"cor2", "thm3-exact", "thm3-lower", "composition"} <= names, names)
        exact = f["/closed_forms/thm3-exact"][...]
        check("closed form shape", exact.shape == R.shape)
        rel = np.max(np.abs(R[1:] - exact[1:]) / exact[1:])
        check("optimal gamma equals the exact divergence (1e-9)", rel < 1e-9, rel)
        check("json orders", summary["orders"] == list(orders))
        check("json R is the final row", np.allclose(summary["R"], R[-1], rtol=0, atol=0))
        check("json t", summary["t"] == 20.0)
        check("json closed forms", np.allclose(summary["closed_forms"]["thm3-exact"], exact[-1], rtol=0, atol=0))

    # Overwriting an existing output replaces it whole (atomic rename).
    r = run("solve", os.path.join(EXAMPLES, "figure1_lambda4.toml"), "-o", out)
    with h5py.File(out, "r") as f:
        check("overwrite", "cor1" in f["/closed_forms"] and f["/R"].shape == (1001, 3))
    check("no temporaries left", sorted(os.listdir(tmp)) == ["bad.toml", "fig2.h5", "table.toml"],
          os.listdir(tmp))

    # [report] delta: epsilon and the best order in JSON and HDF5 (improved conversion, rounded
    # outward). The run's data are linear in alpha (R = alpha w), so epsilon is minimised over
    # alpha in [1.001, 1e4], not only over the configured orders: it is the conversion at its
    # best_order of best_order * w, and at most the configured orders' minimum.
    def improved(a, R, delta=1e-5):  # Balle et al. 2020 Thm 21
        return max(0.0, R + math.log((a - 1) / a) - (math.log(delta) + math.log(a)) / (a - 1))

    cfg = os.path.join(tmp, "delta.toml")
    with open(cfg, "w") as f:
        f.write(BASE + "[report]\ndelta = 1e-5\n")
    out = os.path.join(tmp, "delta.h5")
    r = run("solve", cfg, "-o", out, "--json")
    summary = json.loads(r.stdout)
    orders, R = summary["orders"], summary["R"]
    on_grid = min(improved(orders[j], R[j]) for j in range(len(orders)))
    w = min(R[j] / orders[j] for j in range(len(orders)))
    a = summary["best_order"]
    check("json epsilon: the conversion at best_order of alpha w (Balle et al. 2020 Thm 21)",
          abs(summary["epsilon"] - improved(a, a * w)) <= 1e-12 * summary["epsilon"], (summary.get("epsilon"), a))
    check("json epsilon at most the configured orders' minimum", summary["epsilon"] <= on_grid,
          (summary["epsilon"], on_grid))
    check("json best order in [1.001, 1e4]", 1.001 <= a <= 1e4, a)
    with h5py.File(out) as f:
        check("hdf5 epsilon attribute is a number", isinstance(f.attrs["epsilon"], (float, np.floating)),
              type(f.attrs["epsilon"]))
        check("hdf5 epsilon attribute", float(f.attrs["epsilon"]) == summary["epsilon"])
        check("hdf5 epsilon_conversion says how", "alpha in [1.001, 10000]" in f.attrs["epsilon_conversion"],
              f.attrs["epsilon_conversion"])
    os.remove(cfg)
    os.remove(out)

    # What the tool knows, it checks: the two cases exit 2 naming key, value, known value
    # and rule (docs/config.md, "Declared constants checked against the run"); no output is left.
    quadratic = open(os.path.join(EXAMPLES, "quadratic_anisotropic.toml")).read()
    quadratic = quadratic.replace('kind = "exact-quadratic"', 'kind = "recursion"\nlambda = 2.0\nbeta = 2.3')
    squared = open(os.path.join(EXAMPLES, "figure2_tight.toml")).read()
    squared = squared.replace('kind = "recursion"', 'kind = "recursion"\nlipschitz = 0.5')
    for name, text, command, message in [
            ("quadratic lambda", quadratic, "compare",
             ["'lsi.lambda' = 2: must be <= h_min = 0.5083378208931", "smallest eigenvalue of quadratic.hessian"]),
            ("quadratic lambda (solve)", quadratic, "solve", ["'lsi.lambda' = 2: must be <= h_min"]),
            ("squared lipschitz", squared, "solve",
             ["'lsi.lipschitz' = 0.5: must be >= 0.98 = |1 - eta| at eta = 0.02 (algorithm.eta)"]),
            ("squared lipschitz (compare)", squared, "compare", ["'lsi.lipschitz' = 0.5: must be >= 0.98"])]:
        cfg = os.path.join(tmp, "contradiction.toml")
        with open(cfg, "w") as f:
            f.write(text)
        out = os.path.join(tmp, "contradiction.h5")
        r = run(command, cfg, "-o", out)
        check(f"{name}: exit 2", r.returncode == 2, f"rc={r.returncode} {r.stderr}")
        check(f"{name}: message", all(m in r.stderr for m in message), r.stderr)
        check(f"{name}: no output", not os.path.exists(out))
        os.remove(cfg)

    # Declared vs derived constants: solve (JSON, HDF5 root attributes) and compare (JSON, table
    # footer, HDF5 root attributes).
    out = os.path.join(tmp, "constants.h5")
    r = run("solve", os.path.join(EXAMPLES, "figure1_lambda1.toml"), "-o", out, "--json")
    summary = json.loads(r.stdout)
    check("solve json: generic loss declares lambda, beta, S_g",
          any(e.startswith("lsi.lambda = 1 (") and "generic loss" in e for e in summary["declared_constants"])
          and any(e.startswith("lsi.beta = 4 (") for e in summary["declared_constants"])
          and any(e.startswith("algorithm.sensitivity = 4 (") for e in summary["declared_constants"]),
          summary.get("declared_constants"))
    with h5py.File(out) as f:
        check("solve hdf5: declared_constants attribute, one entry per line",
              f.attrs["declared_constants"].split("\n") == summary["declared_constants"], f.attrs.get("declared_constants"))
        check("solve hdf5: derived_constants attribute",
              f.attrs["derived_constants"].split("\n") == summary["derived_constants"], f.attrs.get("derived_constants"))
    os.remove(out)
    checked = quadratic.replace("lambda = 2.0", "lambda = 0.5")
    cfg = os.path.join(tmp, "checked.toml")
    with open(cfg, "w") as f:
        f.write(checked)
    r = run("compare", cfg, "--json", "-o", out)
    check("compare with checked constants exits 0", r.returncode == 0, r.stderr)
    obj = json.loads(r.stdout)
    check("compare json: checked lambda is derived, not declared",
          any(e.startswith("lsi.lambda = 0.5 (declared; checked <= h_min") for e in obj["derived_constants"])
          and not any(e.startswith("lsi.lambda") for e in obj["declared_constants"]), obj.get("derived_constants"))
    with h5py.File(out) as f:
        check("compare hdf5: constant lists", f.attrs["derived_constants"].split("\n") == obj["derived_constants"]
              and f.attrs["declared_constants"].split("\n") == obj["declared_constants"])
    table = run("compare", cfg).stdout
    check("compare table footer: declared and derived constants",
          "\ndeclared constants (" in table and "\nderived constants (" in table and "lsi.lambda = 0.5" in table,
          table[-800:])
    exact = obj["exact"]["R"]
    check("compare with correct constants: every valid analysis >= exact",
          all(all(x >= e * (1 - 1e-9) for x, e in zip(a["R"], exact)) for a in obj["analyses"] if a["applies"]))
    os.remove(cfg)
    os.remove(out)

    # calibrate: the smallest sigma meeting (1, 1e-5) for this tool's bound; solve confirms it.
    # calibrate's epsilon is compare's and solve's: minimised over every order in [1.001, 1e4] where
    # the bound is known there (here alpha w, linear data), never above the configured orders' one.
    tight = os.path.join(EXAMPLES, "figure2_tight.toml")
    r = run("calibrate", tight, "--epsilon", "1", "--delta", "1e-5", "--analysis", "pdi", "--json")
    check("calibrate exits 0", r.returncode == 0, r.stderr)
    sigma = json.loads(r.stdout)["sigma"]

    def epsilon_at(s):
        cfg = os.path.join(tmp, "cal.toml")
        with open(tight) as src, open(cfg, "w") as dst:
            dst.write(src.read().replace("sigma = 0.02", f"sigma = {s!r}") + "[report]\ndelta = 1e-5\n")
        out = json.loads(run("solve", cfg, "--json").stdout)
        os.remove(cfg)
        grid = min(improved(a, R) for a, R in zip(out["orders"], out["R"]))
        check(f"solve's epsilon at sigma = {s!r} is at most the configured orders' minimum", out["epsilon"] <= grid)
        return out["epsilon"]

    check("calibrated sigma meets the target", epsilon_at(sigma) <= 1.0, epsilon_at(sigma))
    check("a slightly smaller sigma does not", epsilon_at(sigma * (1 - 1e-6)) > 1.0)
    r = run("calibrate", tight, "--epsilon", "1", "--delta", "1e-5", "--analysis", "no-such-analysis")
    check("calibrate: unknown analysis exits 2", r.returncode == 2 and "'--analysis'" in r.stderr, r.stderr)

    # PETSc options go after `--`; one PETSc never reads is an error (as -options_left reports it).
    log = os.path.join(tmp, "log.txt")
    r = run("solve", os.path.join(EXAMPLES, "figure1_lambda1.toml"), "--json", "--", "-log_view", ":" + log)
    check("PETSc options after -- pass through", r.returncode == 0 and os.path.exists(log), r.stderr)
    r = run("solve", os.path.join(EXAMPLES, "figure1_lambda1.toml"), "--json", "--", "-ts_typo", "rk")
    check("an unused PETSc option: exit 2 naming it", r.returncode == 2 and "'-ts_typo rk' was never used" in r.stderr, r.stderr)
    r = run("solve", os.path.join(EXAMPLES, "figure1_lambda1.toml"), "--json", "-log_view")
    check("a PETSc option before --: exit 2", r.returncode == 2 and "-log_view" in r.stderr, r.stderr)

    # The default gamma is the optimal one where the engine certifies it: below gamma = 1/2, which
    # on a 10-step run lies above composition, and at most composition (gamma = 1 at every step is
    # composition; the optimal gamma can only do better), up to the outward rounding.
    ten = ["--set", "algorithm.steps=10", "--set", "orders.values=[10]"]
    no_gamma = os.path.join(tmp, "no_gamma.toml")
    with open(no_gamma, "w") as f:
        f.write(open(os.path.join(EXAMPLES, "figure1_lambda1.toml")).read().replace("gamma = 0.5", ""))
    default = json.loads(run("solve", no_gamma, "--json", *ten).stdout)
    optimal = json.loads(run("solve", no_gamma, "--json", *ten, "--set", "analysis.gamma=optimal").stdout)
    half = json.loads(run("solve", no_gamma, "--json", *ten, "--set", "analysis.gamma=0.5").stdout)
    check("default gamma = optimal", default["R"] == optimal["R"], (default["R"], optimal["R"]))
    check("default gamma below 1/2 (above composition) and at most composition",
          default["R"][0] < half["R"][0] and half["R"][0] > default["closed_forms"]["composition"][0]
          and default["R"][0] <= default["closed_forms"]["composition"][0] * (1 + 1e-13),
          (default["R"], half["R"], default["closed_forms"]["composition"]))

    # Signals: SIGINT, SIGTERM and SIGHUP remove the temporary output and exit with 128 + signal.
    import signal
    import time
    sigdir = os.path.join(tmp, "signals")
    os.makedirs(sigdir)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        p = subprocess.Popen([RDPDYN, "solve", os.path.join(EXAMPLES, "figure1_lambda1.toml"), "-o",
                              os.path.join(sigdir, "long.h5"), "--set", "algorithm.steps=2000000000",
                              "--set", "output.record_steps=[2000000000]"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 20
        while time.time() < deadline and not any(".tmp-" in f for f in os.listdir(sigdir)):
            time.sleep(0.02)
        had_temporary = any(".tmp-" in f for f in os.listdir(sigdir))
        p.send_signal(sig)
        out, err = p.communicate(timeout=30)
        check(f"{sig.name}: the solve was writing its temporary", had_temporary, os.listdir(sigdir))
        check(f"{sig.name}: exit 128 + {int(sig)}", p.returncode == 128 + int(sig), (p.returncode, err))
        check(f"{sig.name}: no file left", os.listdir(sigdir) == [], os.listdir(sigdir))
        check(f"{sig.name}: an 'interrupted' line says so", "rdpdyn: interrupted; no output file was written" in err, err)
    # A closed stdout ends the process quietly (no PETSc or MPI abort).
    r = subprocess.run(f"{RDPDYN} solve {os.path.join(EXAMPLES, 'fd_convergence.toml')} --json | head -c 5",
                       shell=True, capture_output=True, text=True, timeout=300)
    check("closed stdout: quiet", r.stderr == "" and r.stdout == '{"R":', (r.stdout, r.stderr))

    # Contradictions resolved (docs/config.md agrees): an order-dependent LSI schedule runs on the
    # finite-difference engine with /lsi_constant NaN after step 0; the default grid.alpha_max stops
    # at a tabulated start while an explicit larger value is refused.
    alpha_lsi = os.path.join(tmp, "alpha_lsi.toml")
    with open(alpha_lsi, "w") as f:
        f.write('[orders]\nvalues = [2, 4]\n[algorithm]\nkind = "noisy-gd"\nsteps = 3\neta = 0.02\nsigma = 0.5\n'
                'n = 100\nsensitivity = 1.0\n[lsi]\nkind = "function"\nc = "50 / (1 + 0.01*alpha)"\n'
                '[analysis]\nengine = "finite-difference"\ngamma = 0.5\n[grid]\ncells = 64\n')
    out_alpha = os.path.join(tmp, "alpha_lsi.h5")
    r = run("solve", alpha_lsi, "-o", out_alpha)
    check("alpha-dependent LSI schedule: exit 0", r.returncode == 0, r.stderr)
    if r.returncode == 0:
        with h5py.File(out_alpha, "r") as f:
            c = f["lsi_constant"][()]
            check("alpha-dependent LSI schedule: lsi_constant inf, then NaN", c[0] == np.inf and np.all(np.isnan(c[1:])), c)
            check("alpha-dependent LSI schedule: R finite", np.all(np.isfinite(f["R"][()])))
    table_fd = os.path.join(tmp, "table_fd.toml")
    with open(table_fd, "w") as f:
        f.write('[orders]\nvalues = [2, 4]\n[algorithm]\nkind = "noisy-gd"\nsteps = 2\neta = 0.02\nsigma = 0.5\n'
                'n = 100\nsensitivity = 1.0\n[lsi]\nkind = "constant"\nc = 1\n[initial]\nkind = "table"\n'
                'alpha = [1.5, 10]\nR = [0.001, 0.01]\n[analysis]\nengine = "finite-difference"\ngamma = 0.5\n[grid]\ncells = 64\n')
    r = run("solve", table_fd, "--json")
    check("table start: the default alpha_max stops at the table", r.returncode == 0, r.stderr)
    r = run("solve", table_fd, "--json", "--set", "grid.alpha_max=16")
    check("table start: an explicit alpha_max above the table is refused",
          r.returncode == 2 and "'grid.alpha_max' = 16: must be <= the largest tabulated order initial.alpha = 10" in r.stderr, r.stderr)

    # A strict command line: unknown options, extra arguments and misspelt subcommands are refused
    # with exit 2 and a hint for near misses.
    fig1_path = os.path.join(EXAMPLES, "figure1_lambda1.toml")
    for args, needle in [
        (["solve", fig1_path, "--jsno"], "did you mean '--json' instead of '--jsno'?"),
        (["solv", fig1_path], "did you mean 'solve' instead of 'solv'?"),
        (["compare", fig1_path, "--quite"], "did you mean '--quiet'"),
        (["solve", fig1_path, "extra.toml"], "not expected: extra.toml"),
        (["validate", "sc.toml", "extra.toml"], "not expected: extra.toml"),
        (["validate", "sc.toml"], "cannot be read: No such file or directory"),
        (["solve", EXAMPLES], "is a directory, not a configuration file"),
        (["solve", fig1_path, "-o", tmp], "is a directory; give a file name"),
        (["solve", fig1_path, "-o", "/proc/x.h5"], "cannot be written: No such file or directory"),
        (["solve", fig1_path, "-o", os.path.join(tmp, "no", "x.h5")], "does not exist"),
    ]:
        r = run(*args)
        check(f"strict: {' '.join(args[:1] + args[2:])}: exit 2", r.returncode == 2, (r.returncode, r.stderr))
        check(f"strict: {' '.join(args[:1] + args[2:])}: message", needle in r.stderr, r.stderr)
    r = run("solve", "--help")
    check("--help documents exit codes and PETSc options", r.returncode == 0 and "Exit codes" in r.stdout and "after `--`" in r.stdout, r.stdout)
    cfg_text = open(fig1_path).read().replace("gamma = 0.5", "gama = 0.5")
    typo = os.path.join(tmp, "typo.toml")
    with open(typo, "w") as f:
        f.write(cfg_text)
    r = run("solve", typo)
    check("a misspelt key: did you mean", r.returncode == 2 and "did you mean 'analysis.gamma'?" in r.stderr, r.stderr)

    # --set KEY=VALUE overrides a key of the file, with the file's checks and messages.
    fig1 = os.path.join(EXAMPLES, "figure1_lambda1.toml")
    plain = json.loads(run("solve", fig1, "--json").stdout)
    r = run("solve", fig1, "--json", "--set", "algorithm.sigma=0.5")
    check("--set: exit 0", r.returncode == 0, r.stderr)
    changed = json.loads(r.stdout) if r.returncode == 0 else {"R": plain["R"]}
    check("--set changes the result (larger sigma, smaller R)",
          all(a < b for a, b in zip(changed["R"], plain["R"])), (changed["R"], plain["R"]))
    r = run("solve", fig1, "--json", "--set", "algorithm.sigma=0.5", "--set", "orders.values=[2, 4]")
    check("--set repeatable, arrays", r.returncode == 0 and len(json.loads(r.stdout)["R"]) == 2, r.stderr)
    r = run("solve", fig1, "--set", "algorithm.sigmaa=0.5")
    check("--set unknown key exits 2 naming it",
          r.returncode == 2 and "'algorithm.sigmaa'" in r.stderr and "unknown key" in r.stderr, r.stderr)
    r = run("solve", fig1, "--set", "algorithm.sigma=-1")
    check("--set bad value exits 2", r.returncode == 2 and "'algorithm.sigma' = -1" in r.stderr, r.stderr)
    r = run("solve", fig1, "--set", "algorithm.sigma=fast")
    check("--set wrong type exits 2", r.returncode == 2 and "must be a number" in r.stderr, r.stderr)
    r = run("solve", fig1, "--set", "algorithm.sigma")
    check("--set without = exits 2", r.returncode == 2 and "KEY=VALUE" in r.stderr, r.stderr)
    r = run("compare", fig1, "--json", "--set", "algorithm.sigma=0.5")
    check("--set on compare", r.returncode == 0, r.stderr)
    out = os.path.join(tmp, "set.h5")
    r = run("solve", fig1, "-o", out, "--set", "algorithm.sigma=0.5")
    with h5py.File(out, "r") as f:
        text = f.attrs["config"]
        text = text.decode() if isinstance(text, bytes) else str(text)
    check("--set recorded in the HDF5 config text (written without MPI)",
          r.returncode == 0 and "# algorithm.sigma=0.5" in text, text[-200:])

    # No MPI unless needed: with an MCA setting under which MPI_Init fails, the characteristics
    # engine still runs (MPI is never initialised), while the finite-difference engine cannot.
    broken_mpi = {"OMPI_MCA_pml": "rdpdyn_no_such_component"}
    r = run("solve", fig1, "--json", "-o", os.path.join(tmp, "nompi.h5"), env=broken_mpi)
    check("characteristics solve runs without MPI_Init", r.returncode == 0, r.stderr)
    r = run("compare", fig1, "--json", env=broken_mpi)
    check("compare runs without MPI_Init", r.returncode == 0, r.stderr)
    r = run("solve", fig1, "--json", "--set", "analysis.engine=finite-difference", env=broken_mpi)
    check("finite-difference engine initialises MPI (control: fails under the broken setting)",
          r.returncode != 0, r.stderr)

    # Limits (docs/config.md, "Limits" and "Memory estimate"): an absurd size is refused at once,
    # with exit 2, the key and the rule, and no output file. CPU time rather than wall time: the

    # algorithm.kind = "pdi" (docs/config.md): bad coefficients exit 2 naming key, value and rule,
    # at configuration time or (a sigma(t) that dips below 0 between interval boundaries) while
    # solving, on both engines; no output file is left.
    pdi = """
[orders]
values = [2, 10]
[algorithm]
kind = "pdi"
time = 1.0
sigma = 0.1
sensitivity = 0.002
intervals = 10
[lsi]
kind = "constant"
c = 5
[analysis]
gamma = 0.5
"""
    for name, old, new, message in [
            ("sigma(t) <= 0 at a boundary", "sigma = 0.1", 'sigma = "0.1 - t"',
             ["'algorithm.sigma' = \"0.1 - t\"", "must be finite and > 0 at every t in [0, algorithm.time]"]),
            ("unknown variable", "sigma = 0.1", 'sigma = "0.1 * alpha"', ["'algorithm.sigma' = \"0.1 * alpha\""]),
            ("expression syntax", "sensitivity = 0.002", 'sensitivity = "exp(-t"', ["'algorithm.sensitivity' = \"exp(-t\""]),
            ("negative S_v(t)", "sensitivity = 0.002", 'sensitivity = "0.002 * (0.5 - t)"',
             ["'algorithm.sensitivity' = \"0.002 * (0.5 - t)\"", "must be finite and >= 0"]),
            ("n is not a key", "intervals = 10", "intervals = 10\nn = 100", ["'algorithm.n'", "unknown key"]),
            ("event off the interval grid", "gamma = 0.5",
             'gamma = 0.5\n[[events]]\ntime = 0.25\nkind = "gaussian-release"\nsensitivity = 1\nnoise_std = 1',
             ["'events[0].time' = 0.25", "multiple of algorithm.time / algorithm.intervals = 0.1"])]:
        text = pdi.replace(old, new)
        if "finite-difference" in name:
            text = text.replace("gamma = 0.5", 'gamma = 0.5\nengine = "finite-difference"')
        cfg = os.path.join(tmp, "pdi_bad.toml")
        with open(cfg, "w") as f:
            f.write(text)
        out = os.path.join(tmp, "pdi_bad.h5")
        r = run("solve", cfg, "-o", out)
        check(f"pdi {name}: exit 2", r.returncode == 2, f"rc={r.returncode} {r.stderr}")
        check(f"pdi {name}: message", all(m in r.stderr for m in message), r.stderr)
        check(f"pdi {name}: no output", not any(n.startswith("pdi_bad.h5") for n in os.listdir(tmp)), os.listdir(tmp))
    cfg = os.path.join(tmp, "pdi_good.toml")
    with open(cfg, "w") as f:
        f.write(pdi)
    r = run("solve", cfg, "-o", os.path.join(tmp, "pdi_good.h5"))
    check("pdi: solve runs", r.returncode == 0, r.stderr)
    with h5py.File(os.path.join(tmp, "pdi_good.h5"), "r") as f:
        check("pdi: algorithm attribute", f.attrs.get("algorithm") == "pdi", dict(f.attrs))
        # C21 Thm 2 (gamma = 1/2, S = S_v, n = 1) at T = 1, alpha = 2: 2 * 4e-6 / (8 * 0.25 * 5 * 1e-4) (1 - e^{-0.05})
        thm2 = 2 * 0.002**2 / (8 * 0.25 * 5 * 0.1**4) * -math.expm1(-0.05)
        check("pdi: R = C21 Thm 2", abs(f["/R"][-1, 0] / thm2 - 1) < 1e-12, (f["/R"][-1, 0], thm2))
    r = run("calibrate", cfg, "--epsilon", "1", "--delta", "1e-5")
    check("pdi: calibrate refuses (exit 2)", r.returncode == 2 and "'algorithm.kind' = \"pdi\"" in r.stderr, r.stderr)

    # refusal must not depend on how loaded the machine is.
    import resource

    def cpu_seconds():
        u = resource.getrusage(resource.RUSAGE_CHILDREN)
        return u.ru_utime + u.ru_stime

    out = os.path.join(tmp, "huge_orders.h5")
    before = cpu_seconds()
    r = run("compare", fig1, "-o", out, "--set", "orders={ min = 1.5, max = 64, count = 4611686018427387904 }")
    spent = cpu_seconds() - before
    check("compare with orders.count = 2^62 exits 2 at once, naming the key and the limit, no output",
          r.returncode == 2 and "'orders.count' = 4611686018427387904" in r.stderr and "65536 (2^16)" in r.stderr
          and spent < 0.5 and not os.path.exists(out), f"{spent:.3f} s CPU; " + r.stderr)

    partition = os.path.join(EXAMPLES, "ye_shokri_mnist_partition.toml")
    out = os.path.join(tmp, "too_big.h5")
    before = cpu_seconds()
    r = run("solve", partition, "-o", out, "--set", "algorithm.steps=1000000000000", "--set", "output.record_every=1",
            "--set", "orders={ min = 1.5, max = 64, count = 4096 }")
    spent = cpu_seconds() - before
    check("a run whose memory estimate exceeds the machine exits 2 naming the estimate and the key, no output",
          r.returncode == 2 and "'output.record_every' = 1" in r.stderr and "estimated" in r.stderr
          and "4096 orders x 1000000000001 records x 8 B" in r.stderr and "physical memory" in r.stderr
          and spent < 0.5 and not os.path.exists(out), f"{spent:.3f} s CPU; " + r.stderr)

    out = os.path.join(tmp, "too_big_file.h5")
    before = cpu_seconds()
    r = run("solve", fig1, "-o", out, "--set", "algorithm.steps=1000000000000",
            "--set", "orders={ min = 1.5, max = 64, count = 4096 }")
    spent = cpu_seconds() - before
    check("solve -o whose file cannot fit on its disk exits 2 naming the estimate and the key, no output",
          r.returncode == 2 and "'output.record_every' = 1" in r.stderr and "output file would take an estimated" in r.stderr
          and "1000000000001 records x 5 rows x 4096 orders x 8 B" in r.stderr and spent < 0.5
          and not os.path.exists(out), f"{spent:.3f} s CPU; " + r.stderr)
    r = run("solve", fig1, "--json", env={"RDPDYN_MEMORY_LIMIT": "100"})
    check("RDPDYN_MEMORY_LIMIT lowers the budget: a small run refused under 100 bytes",
          r.returncode == 2 and "RDPDYN_MEMORY_LIMIT (100 B)" in r.stderr and "'orders' = 3 orders" in r.stderr,
          r.stderr)
    r = run("solve", fig1, "--json", env={"RDPDYN_MEMORY_LIMIT": "lots"})
    check("an unreadable RDPDYN_MEMORY_LIMIT exits 2", r.returncode == 2 and "'RDPDYN_MEMORY_LIMIT'" in r.stderr,
          r.stderr)
    r = run("solve", fig1, "--set", "algorithm.steps=1099511627777")
    check("algorithm.steps beyond 2^40 exits 2",
          r.returncode == 2 and "'algorithm.steps' = 1099511627777" in r.stderr and "(2^40)" in r.stderr, r.stderr)
    r = run("calibrate", fig1, "--epsilon", "1", "--delta", "1e-5", "--for", "steps", "--max-steps", "4611686018427387904")
    check("calibrate --max-steps beyond 2^40 exits 2",
          r.returncode == 2 and "'--max-steps' = 4611686018427387904" in r.stderr, r.stderr)
    sweep_file = os.path.join(EXAMPLES, "sweep_surface.toml")
    before = cpu_seconds()
    r = run("sweep", sweep_file, "--set", "sweep.axis[0]={ key = \"algorithm.sigma\", range = { start = 0.1, stop = 1, count = 4611686018427387904 } }")
    spent = cpu_seconds() - before
    check("sweep with a range count of 2^62 exits 2 at once",
          r.returncode == 2 and "count' = 4611686018427387904" in r.stderr and spent < 0.5, r.stderr)
    r = run("sweep", partition, "--json", "--set", "sweep.axis=[{ key = \"algorithm.steps\", values = [29, 1000000000000] }]",
            "--set", "sweep.analyses=[\"pdi\"]")
    reasons = json.loads(r.stdout)["analyses"]["pdi"]["reason"] if r.returncode == 0 else []
    check("a sweep point whose memory estimate exceeds the machine is an invalid point naming the key",
          len(reasons) == 2 and reasons[0] == "" and "'algorithm.steps' = 1000000000000" in reasons[1]
          and "estimated" in reasons[1], r.stderr + str(reasons))
    conv = os.path.join(tmp, "conv.toml")
    with open(os.path.join(EXAMPLES, "fd_convergence.toml")) as f:
        text = f.read()
    with open(conv, "w") as f:
        f.write("\n".join("cells = 4096" if line.startswith("cells =") else line for line in text.splitlines()) + "\n")
    r = run("validate", "--convergence", conv, "--grids", "12")
    check("a convergence study whose finest grid exceeds grid.cells' limit exits 2",
          r.returncode == 2 and "'--grids' = 12" in r.stderr and "4096 x 2048 cells" in r.stderr, r.stderr)
    big = os.path.join(tmp, "big.toml")
    with open(big, "w") as f:
        f.write(BASE)
    os.truncate(big, 64 * 2**20 + 1)  # sparse: nothing written
    r = run("solve", big)
    check("a configuration file over 64 MiB exits 2", r.returncode == 2 and "'CONFIG'" in r.stderr
          and "67108864 (2^26) bytes" in r.stderr, r.stderr)

finish()
