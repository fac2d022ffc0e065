#!/usr/bin/env python3
"""Whole-process wall time of a sweep on one process against `mpirun -n 2`, in one run (hyperfine,
alternating), and a check that both write the same surfaces bit for bit.

The sweep is examples/sweep_surface.toml with heavier points: 100 sigmas x 20 step counts from
10^4 to 4 x 10^5 (2000 characteristics points, 100 orders, epsilon per point).

usage: sweep_mpi_scaling.py RDPDYN SOURCE_DIR [MPIEXEC] [RUNS]
"""
import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

RDPDYN, SOURCE = sys.argv[1], sys.argv[2]
MPIEXEC = sys.argv[3] if len(sys.argv) > 3 else "mpirun"
RUNS = sys.argv[4] if len(sys.argv) > 4 else "3"
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
SETS = "--set 'sweep.axis[1]={key = \"algorithm.steps\", range = {start = 10000, stop = 400000, count = 20}}' --quiet"
CONFIG = os.path.join(SOURCE, "examples", "sweep_surface.toml")

with tempfile.TemporaryDirectory() as tmp:
    one, two = os.path.join(tmp, "one.h5"), os.path.join(tmp, "two.h5")
    cmd1 = f"{RDPDYN} sweep {CONFIG} -o {one} {SETS}"
    cmd2 = f"{MPIEXEC} -n 2 {RDPDYN} sweep {CONFIG} -o {two} {SETS}"
    report = os.path.join(tmp, "times.json")
    subprocess.run(["hyperfine", "--warmup", "1", "--runs", RUNS, "--export-json", report, cmd1, cmd2],
                   check=True, stdout=subprocess.DEVNULL)
    results = json.load(open(report))["results"]
    t1, t2 = results[0]["median"], results[1]["median"]
    with h5py.File(one, "r") as a, h5py.File(two, "r") as b:
        points = int(a.attrs["points"])
        same = all(np.array_equal(a[f"sweep/{n}/{d}"][()].view(np.uint64), b[f"sweep/{n}/{d}"][()].view(np.uint64))
                   for n in ("pdi", "chourasia-cor2") for d in ("R", "epsilon", "best_order"))
    print(f"{points} points x 100 orders, 2 analyses, epsilon per point")
    print(f"one process:  median {t1:.2f} s")
    print(f"mpirun -n 2:  median {t2:.2f} s")
    print(f"speed-up: {t1 / t2:.2f}x; surfaces bit for bit equal: {same}")
