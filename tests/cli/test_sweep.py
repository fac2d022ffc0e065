#!/usr/bin/env python3
"""`rdpdyn sweep` end to end: the HDF5 file read through h5py's dimension scales and through
xarray (named dimensions and coordinates), the reading example of docs/hdf5.md run as written,
--json against the file, the sweep example against C21's closed forms, bad input (exit 2, no
output), --set, the progress line (sweep, and a long solve) on a terminal and its silence in pipes; with MPIEXEC, the
result of `mpirun -n 2` against one process, bit for bit.

usage: test_sweep.py RDPDYN SOURCE_DIR [MPIEXEC]
"""
import json
import math
import os
import pty
import re
import select
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

import h5py
import numpy as np

RDPDYN, SOURCE = sys.argv[1], sys.argv[2]
MPIEXEC = sys.argv[3] if len(sys.argv) > 3 else None
EXAMPLE = os.path.join(SOURCE, "examples", "sweep_surface.toml")
# A small version of the example: 5 sigmas x 4 step counts x 100 orders.
SMALL = ["--set", "sweep.axis[0].range={start = 0.01, stop = 1.0, count = 5, scale = \"log\"}",
         "--set", "sweep.axis[1]={key = \"algorithm.steps\", values = [1, 10, 100, 1000]}"]


def run(args, **kw):
    return subprocess.run([RDPDYN] + args, capture_output=True, text=True, timeout=600, **kw)


def datasets(path):
    """Every dataset's bytes (strings as text) and every attribute, by path."""
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                v = obj[()]
                out[name] = v.tobytes() if v.dtype.kind == "f" else [x.decode() if isinstance(x, bytes) else x
                                                                     for x in np.ravel(v)]
                out[name + "@attrs"] = {k: str(obj.attrs[k]) for k in obj.attrs if k not in ("DIMENSION_LIST", "REFERENCE_LIST")}
        f.visititems(visit)
        out["/@attrs"] = {k: str(f.attrs[k]) for k in f.attrs if k != "created_utc"}  # the clock, not content
    return out


def terminal_stderr(args):
    """Runs with stderr on a pseudo-terminal (stdout a pipe); returns (exit code, stderr text)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([RDPDYN] + args, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 30)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    p.stdout.read()
    code = p.wait(timeout=60)
    os.close(master)
    return code, b"".join(chunks).decode(errors="replace")


with tempfile.TemporaryDirectory() as tmp:
    if MPIEXEC:
        # Points spread over 2 ranks (balanced by estimated cost), gathered on rank 0: the file and
        # the JSON equal one process's bit for bit.
        one, two = os.path.join(tmp, "one.h5"), os.path.join(tmp, "two.h5")
        args = ["sweep", EXAMPLE, "--quiet"] + SMALL + ["--set", "sweep.analyses=[\"pdi\", \"chourasia-cor2\", \"best\"]"]
        r1 = run(args + ["-o", one, "--json"])
        r2 = subprocess.run([MPIEXEC, "-n", "2", RDPDYN] + args + ["-o", two, "--json"],
                            capture_output=True, text=True, timeout=600)
        check("mpirun -n 2 sweep runs", r1.returncode == 0 and r2.returncode == 0, (r1.stderr, r2.stderr))
        a, b = datasets(one), datasets(two)
        check("mpirun -n 2: the same datasets", sorted(a) == sorted(b), (sorted(a), sorted(b)))
        differing = [k for k in a if a[k] != b.get(k)]
        check("mpirun -n 2: every dataset and attribute bit for bit as one process", not differing, differing)
        check("mpirun -n 2: the same JSON", r1.stdout == r2.stdout)
        with h5py.File(two, "r") as f:
            check("mpirun -n 2: all 20 points valid", f.attrs["valid_points"] == 20.0, f.attrs["valid_points"])
        finish()

    # ---- the file: named dimensions through h5py and xarray ---------------------------------------
    out = os.path.join(tmp, "surface.h5")
    r = run(["sweep", EXAMPLE, "-o", out, "--json"] + SMALL)
    check("sweep runs", r.returncode == 0, r.stderr)
    check("sweep in a pipe: no progress on stderr", r.stderr == "", r.stderr)
    j = json.loads(r.stdout)
    with h5py.File(out, "r") as f:
        R = f["sweep/pdi/R"]
        check("R shape (sigma, steps, orders)", R.shape == (5, 4, 100), R.shape)
        check("dimension labels are the keys", [d.label for d in R.dims] == ["algorithm.sigma", "algorithm.steps", "orders"],
              [d.label for d in R.dims])
        check("dimension scales named by the keys", [list(d.keys()) for d in R.dims] == [["algorithm.sigma"], ["algorithm.steps"], ["orders"]])
        sig = R.dims[0]["algorithm.sigma"][()]
        check("sigma axis: log range with exact ends", sig[0] == 0.01 and sig[-1] == 1.0 and abs(sig[2] - 0.1) < 1e-15, sig)
        check("steps axis", list(R.dims[1]["algorithm.steps"][()]) == [1, 10, 100, 1000])
        eps = f["sweep/pdi/epsilon"]
        check("epsilon has the axes attached", [d.label for d in eps.dims] == ["algorithm.sigma", "algorithm.steps"])
        check("numeric root attributes are numbers", isinstance(f.attrs["points"], (float, np.floating)) and f.attrs["points"] == 20.0)
        check("the configuration is stored", "[sweep]" in f.attrs["config"])
        check("citation and status per analysis", "Cor 2" in f["sweep/chourasia-cor2"].attrs["citation"]
              and f["sweep/pdi"].attrs["status"] == "derived")
        # --json: the same numbers, nested as (sigma, steps[, orders]).
        check("--json R equals the file", np.array_equal(np.array(j["analyses"]["pdi"]["R"]), R[()]))
        check("--json epsilon equals the file", np.array_equal(np.array(j["analyses"]["chourasia-cor2"]["epsilon"]),
                                                               f["sweep/chourasia-cor2/epsilon"][()]))
        # The closed forms at every point: pdi = C21 Thm 3's exact divergence (never below), cor2 = Cor 2.
        Sg, n, eta = 4.0, 5000.0, 0.02
        orders = f["sweep/pdi/orders"][()]
        K = np.array([1, 10, 100, 1000], float)[None, :, None]
        s = sig[:, None, None]
        q = (1 - eta) ** K
        exact = orders * Sg**2 / (4 * s**2 * n**2) * (2 - eta) * (1 - q) / (1 + q)
        cor2 = orders * Sg**2 / ((2 - eta) * s**2 * n**2) * (1 - np.exp(-(2 - eta) * eta * K / 2))
        pdi = R[()]
        check("pdi >= C21 Thm 3 exact at every point", np.all(pdi >= exact * (1 - 1e-15)))
        check("pdi = C21 Thm 3 exact to 1e-9", np.max(np.abs(pdi / exact - 1)) < 1e-9, np.max(np.abs(pdi / exact - 1)))
        check("chourasia-cor2 = C21 Cor 2", np.max(np.abs(f["sweep/chourasia-cor2/R"][()] / cor2 - 1)) < 1e-11)

    import xarray as xr
    ds = xr.open_dataset(out, engine="h5netcdf", group="sweep/pdi")
    check("xarray: named dimensions", ds["R"].dims == ("algorithm.sigma", "algorithm.steps", "orders"), ds["R"].dims)
    check("xarray: coordinates from the scales", float(ds["algorithm.steps"][2]) == 100.0)
    check("xarray: select by value", float(ds["epsilon"].sel({"algorithm.sigma": 1.0, "algorithm.steps": 1000})) ==
          float(j["analyses"]["pdi"]["epsilon"][4][3]))
    ds.close()

    # ---- the reading example of docs/hdf5.md, run as written ------------------------------------
    doc = open(os.path.join(SOURCE, "docs", "hdf5.md"), encoding="utf-8").read()
    section = doc[doc.index("## Files written by `rdpdyn sweep`"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    r_doc = subprocess.run(["/usr/bin/python3", "-c", code], cwd=tmp, capture_output=True, text=True, timeout=120)
    check("docs/hdf5.md sweep example runs", r_doc.returncode == 0, r_doc.stderr)
    check("docs/hdf5.md sweep example prints the labels", "['algorithm.sigma', 'algorithm.steps', 'orders']" in r_doc.stdout,
          r_doc.stdout)

    # ---- invalid points, bad axes, --set ------------------------------------------------------------
    r = run(["sweep", EXAMPLE, "--json"] + SMALL + ["--set", "sweep.axis[1].values=[10, -1]"])
    check("an invalid point does not stop the sweep", r.returncode == 0, r.stderr)
    j = json.loads(r.stdout)
    check("the invalid point is null with its reason",
          j["analyses"]["pdi"]["epsilon"][0][1] is None and "'algorithm.steps' = -1" in j["analyses"]["pdi"]["reason"][0][1],
          j["analyses"]["pdi"]["reason"][0][1])
    check("valid points counted", j["valid_points"] == 5, j["valid_points"])
    for label, extra, needle in [
        ("no valid point", ["--set", "sweep.axis[1].values=[-1, -2]"], "no point of the sweep is valid"),
        ("unknown key through --set", ["--set", "algorithm.sigmaa=1"], "'algorithm.sigmaa' = 1: unknown key"),
        ("unknown analysis", ["--set", "sweep.analyses=[\"nope\"]"], "'sweep.analyses[0]' = \"nope\""),
        ("an axis over the orders", ["--set", "sweep.axis[0].key=\"orders.max\""], "the orders are the last dimension"),
        ("a bad range", ["--set", "sweep.axis[0].range={start = 1, stop = 1, count = 3}"], "must differ from start"),
    ]:
        bad = os.path.join(tmp, "bad.h5")
        r = run(["sweep", EXAMPLE, "-o", bad] + SMALL + extra)
        check(f"{label}: exit 2", r.returncode == 2, (r.returncode, r.stderr))
        check(f"{label}: the message names the rule", needle in r.stderr, r.stderr)
        check(f"{label}: no output file", not os.path.exists(bad))
    r = run(["solve", EXAMPLE])
    check("solve refuses a [sweep] table (exit 2)", r.returncode == 2 and "read only by `rdpdyn sweep`" in r.stderr, r.stderr)
    for command in (["solve"], ["compare"], ["calibrate", "--epsilon", "1", "--delta", "1e-5"]):
        r = run(command + [os.path.join(SOURCE, "examples", "figure2_squared_loss.toml"), "--set", "lsi.kindd=1"])
        check(f"{command[0]} --set of an unknown key: exit 2", r.returncode == 2 and "'lsi.kindd' = 1: unknown key" in r.stderr,
              r.stderr)

    # ---- progress: one updating line on a terminal, nothing in pipes or with --quiet ----------------
    code, text = terminal_stderr(["sweep", EXAMPLE] + SMALL)
    check("progress on a terminal", code == 0 and "rdpdyn sweep: 20/20 points (100%)" in text and "\r" in text, repr(text))
    code, text = terminal_stderr(["sweep", EXAMPLE, "--quiet"] + SMALL)
    check("--quiet: no progress on a terminal", code == 0 and text == "", repr(text))
    # solve shows its steps once it has run for a second; in a pipe, nothing.
    long_solve = ["solve", os.path.join(SOURCE, "examples", "figure1_lambda1.toml"), "--json",
                  "--set", "algorithm.steps=60000000", "--set", "output.record_steps=[60000000]"]
    code, text = terminal_stderr(long_solve)
    check("solve: progress on a terminal after a second", code == 0 and re.search(r"rdpdyn solve: \d+/60000000 steps", text),
          repr(text[-300:]))
    r = run(long_solve)
    check("solve in a pipe: no progress", r.returncode == 0 and r.stderr == "", r.stderr[-300:])
    # calibrate says what it is doing once it has run for a second (issue 37: a long wait without a word).
    long_calibrate = ["calibrate", os.path.join(SOURCE, "examples", "noisysgd_window.toml"), "--epsilon", "3",
                      "--delta", "1e-5"]
    code, text = terminal_stderr(long_calibrate)
    check("calibrate: a word on a terminal after a second", code == 0 and
          re.search(r"rdpdyn calibrate: \d+ candidates, the last sigma = [\d.e-]+: epsilon [\d.]+ \(target 3\)", text),
          repr(text[-300:]))
    r = run(long_calibrate)
    check("calibrate in a pipe: no word", r.returncode == 0 and r.stderr == "", r.stderr[-300:])

finish()
