#!/usr/bin/env python3
"""The finite-difference engine distributed over 2 MPI processes gives the same result as one
process (to 1e-12 relative): certified /R, the finite-difference value and the landing orders.

usage: test_mpi.py RDPDYN SOURCE_DIR MPIEXEC
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

import h5py
import numpy as np

RDPDYN, SOURCE, MPIEXEC = sys.argv[1], sys.argv[2], sys.argv[3]
CONFIG = os.path.join(SOURCE, "examples", "fd_optimal_nonlinear.toml")
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")


with tempfile.TemporaryDirectory() as tmp:
    one, two = os.path.join(tmp, "one.h5"), os.path.join(tmp, "two.h5")
    r1 = subprocess.run([RDPDYN, "solve", CONFIG, "-o", one], capture_output=True, text=True, env=env, timeout=600)
    check("serial run", r1.returncode == 0, r1.stderr)
    r2 = subprocess.run([MPIEXEC, "-n", "2", RDPDYN, "solve", CONFIG, "-o", two, "--", "-log_view", ":" + os.path.join(tmp, "log.txt")],
                        capture_output=True, text=True, env=env, timeout=600)
    check("mpiexec -n 2 run", r2.returncode == 0, r2.stdout + r2.stderr)
    with open(os.path.join(tmp, "log.txt")) as log:
        check("PETSc ran on 2 processes", "with 2 processors" in log.read() or "with 2 MPI processes" in open(os.path.join(tmp, "log.txt")).read())
    check("one output file per run (rank 0 writes)", sorted(os.listdir(tmp)) == ["log.txt", "one.h5", "two.h5"], os.listdir(tmp))
    with h5py.File(one) as a, h5py.File(two) as b:
        for name in ["/R", "/extras/R_finite_difference", "/extras/certified_landing_order", "/t", "/lsi_constant"]:
            x, y = a[name][...], b[name][...]
            rel = np.max(np.abs(x - y) / np.maximum(np.abs(x), 1e-300))
            check(f"{name} identical to 1e-12", x.shape == y.shape and rel <= 1e-12, rel)

finish()
