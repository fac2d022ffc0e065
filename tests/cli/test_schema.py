#!/usr/bin/env python3
"""One output schema for the HDF5 files of `solve`, `compare` and `sweep`: every file carries the
same root attributes (schema_version int32, program, command, program_version, created_utc), and
every attribute of every object reads back with h5py as the type it should: numbers as numbers
(float64, or int32 for schema_version), text as str and never a number written as text.

usage: test_schema.py RDPDYN SOURCE_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

import h5py
import numpy as np

RDPDYN, SOURCE = sys.argv[1], sys.argv[2]
EX = os.path.join(SOURCE, "examples")
# Attributes HDF5's dimension-scale API writes itself (sweep files).
DIMENSION_SCALE_ATTRIBUTES = {"CLASS", "NAME", "REFERENCE_LIST", "DIMENSION_LIST", "DIMENSION_LABELS", "_Netcdf4Dimid"}


def is_number_text(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def check_file(label, path, command):
    with h5py.File(path, "r") as f:
        a = f.attrs
        check(f"{label}: schema_version is an int32 = 5", a["schema_version"].dtype == np.int32 and a["schema_version"] == 5,
              repr(a.get("schema_version")))
        for name, value in (("program", "rdpdyn"), ("command", command)):
            check(f"{label}: {name} = {value}", a.get(name) == value, a.get(name))
        check(f"{label}: program_version", isinstance(a.get("program_version"), str) and re.match(r"\d+\.\d+\.\d+", a["program_version"]))
        check(f"{label}: created_utc", isinstance(a.get("created_utc"), str) and re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", a["created_utc"]))
        bad = []

        def visit(name, obj):
            for key, value in obj.attrs.items():
                if key in DIMENSION_SCALE_ATTRIBUTES:
                    continue
                where = f"{name or '/'}@{key}"
                if isinstance(value, str):
                    if is_number_text(value):
                        bad.append(f"{where}: a number stored as text {value!r}")
                elif isinstance(value, (np.floating, float)):
                    if np.asarray(value).dtype != np.float64:
                        bad.append(f"{where}: {np.asarray(value).dtype}, not float64")
                elif isinstance(value, (np.integer,)):
                    if key != "schema_version":
                        bad.append(f"{where}: an integer attribute other than schema_version")
                else:
                    bad.append(f"{where}: unexpected type {type(value).__name__}")

        visit("", f)
        f.visititems(visit)
        check(f"{label}: every attribute has its type", not bad, bad)
        return dict(a)


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "solve.h5")
    r = subprocess.run([RDPDYN, "solve", os.path.join(EX, "figure2_tight.toml"), "-o", out, "--set", "report.delta=1e-5"],
                       capture_output=True, text=True)
    check("solve runs", r.returncode == 0, r.stderr)
    a = check_file("solve", out, "solve")
    with h5py.File(out, "r") as f:
        check("solve: /step has units and a description", f["step"].attrs.get("units") == "steps (count)"
              and "completed steps" in f["step"].attrs.get("description", ""))
    check("solve: epsilon and delta are float64", isinstance(a.get("epsilon"), np.floating) and a.get("delta") == 1e-5,
          (a.get("epsilon"), a.get("delta")))
    out = os.path.join(tmp, "fd.h5")
    r = subprocess.run([RDPDYN, "solve", os.path.join(EX, "fd_convergence.toml"), "-o", out], capture_output=True, text=True)
    check("solve (finite differences) runs", r.returncode == 0, r.stderr)
    a = check_file("solve, finite differences", out, "solve")
    check("fd_cells is a number", isinstance(a.get("fd_cells"), np.floating), a.get("fd_cells"))
    out = os.path.join(tmp, "compare.h5")
    r = subprocess.run([RDPDYN, "compare", os.path.join(EX, "ye_shokri_fmnist.toml"), "-o", out], capture_output=True, text=True)
    check("compare runs", r.returncode == 0, r.stderr)
    check_file("compare", out, "compare")
    # With [report] epsilon and a PLD entry: delta_at_epsilon, the root epsilon and /curves (schema >= 4).
    out = os.path.join(tmp, "compare_pld.h5")
    r = subprocess.run([RDPDYN, "compare", os.path.join(EX, "dpsgd_accounting.toml"), "-o", out,
                        "--set", "report.epsilon=2"], capture_output=True, text=True)
    check("compare (PLD, report.epsilon) runs", r.returncode == 0, r.stderr)
    a = check_file("compare, PLD curves", out, "compare")
    check("compare: root epsilon is the float64 2", isinstance(a.get("epsilon"), np.floating) and a["epsilon"] == 2.0,
          a.get("epsilon"))
    out = os.path.join(tmp, "sweep.h5")
    r = subprocess.run([RDPDYN, "sweep", os.path.join(EX, "sweep_surface.toml"), "-o", out, "--quiet",
                        "--set", "sweep.axis[0].range={start = 0.01, stop = 1.0, count = 3, scale = \"log\"}",
                        "--set", "sweep.axis[1]={key = \"algorithm.steps\", values = [1, 10]}",
                        "--set", "sweep.analyses=[\"pdi\", \"best\"]"], capture_output=True, text=True)
    check("sweep runs", r.returncode == 0, r.stderr)
    a = check_file("sweep", out, "sweep")
    check("sweep: points is a number", isinstance(a.get("points"), np.floating) and a["points"] == 6.0, a.get("points"))

    # solve and compare files open with xarray's h5netcdf engine, with their coordinates (they used
    # to fail: "no dimension scale associated"); sweep files did already.
    import xarray as xr
    out = os.path.join(tmp, "xr_solve.h5")
    r = subprocess.run([RDPDYN, "solve", os.path.join(EX, "figure1_lambda1.toml"), "-o", out, "--quiet"],
                       capture_output=True, text=True)
    with xr.open_dataset(out, engine="h5netcdf") as ds:
        check("xarray opens a solve file: R over (step, orders), with coordinates",
              ds["R"].dims == ("step", "orders") and "step" in ds.coords and "orders" in ds.coords
              and ds["t"].dims == ("step",) and float(ds["orders"][0]) == 10.0, ds)
    with xr.open_dataset(out, engine="h5netcdf", group="closed_forms") as ds:
        check("xarray opens /closed_forms", ds["cor1"].dims == ("step", "orders"), ds)
    out = os.path.join(tmp, "xr_compare.h5")
    r = subprocess.run([RDPDYN, "compare", os.path.join(EX, "figure1_lambda1.toml"), "-o", out, "--quiet"],
                       capture_output=True, text=True)
    with xr.open_dataset(out, engine="h5netcdf") as ds:
        check("xarray opens a compare file with its orders", "orders" in ds.coords, ds)
    # Its groups too (schema 5): every entry's R over "orders", NaN where the entry does not apply.
    with xr.open_dataset(out, engine="h5netcdf", group="analyses") as ds:
        check("xarray opens /analyses: every entry over orders, its attributes kept",
              all(ds[v].dims == ("orders",) for v in ds.data_vars) and "pdi" in ds.data_vars
              and ds["pdi"].attrs["applies"] == 1.0 and float(ds["pdi"][0]) > 0, ds)
        check("/analyses: an entry that does not apply is NaN at every order, with its reason",
              ds["chourasia-cor2"].attrs["applies"] == 0.0 and bool(np.isnan(ds["chourasia-cor2"]).all())
              and "squared loss" in ds["chourasia-cor2"].attrs["reason"], ds["chourasia-cor2"])
    with h5py.File(out, "r") as f:
        version = int(f.attrs["schema_version"])
    # docs/hdf5.md states the version the program writes, and its history ends there, in order.
    doc = open(os.path.join(SOURCE, "docs", "hdf5.md"), encoding="utf-8").read()
    history = [int(v) for v in re.findall(r"^\| (\d+) \|", doc, re.M)]
    check("docs/hdf5.md: its title's schema version is the program's",
          re.match(r"# HDF5 output \(schema version (\d+)\)", doc).group(1) == str(version), version)
    check("docs/hdf5.md: the history table lists versions 1 to the program's, in order",
          history == list(range(1, version + 1)), history)
    # The root attribute `algorithm`: the documented names are the program's algorithm kinds.
    r = subprocess.run([RDPDYN, "solve", os.path.join(EX, "figure1_lambda1.toml"), "--set", 'algorithm.kind="zzz"'],
                       capture_output=True, text=True)
    kinds = set(re.findall(r'"([a-z-]+)"', r.stderr.split("must be one of", 1)[-1]))
    row = re.search(r"^\| `algorithm` \|([^|]*)\|", doc, re.M).group(1)
    check("docs/hdf5.md: the attribute `algorithm` lists every algorithm.kind",
          kinds and set(re.findall(r"`([a-z-]+)`", row.split(":")[0])) == kinds, (kinds, row))
    with xr.open_dataset(out, engine="h5netcdf", group="best") as ds:
        check("xarray opens /best: R over orders", ds["R"].dims == ("orders",) and ds["R"].attrs["name"] != "", ds)
finish()
