#!/usr/bin/env python3
"""Side by side, whole processes: `rdpdyn compare` of a DP-SGD run against the equivalent opacus
script (the RDP accountant's epsilon for the same run), timed by hyperfine in one run.

The run is examples/dpsgd_accounting.toml: Poisson sampling q = 0.01, noise multiplier 1.1,
10^4 steps, delta = 1e-5. The opacus script does what a user of opacus writes: an RDPAccountant
whose history holds (noise_multiplier, sample_rate, steps), then get_epsilon(delta). opacus is
read from a clone given on the command line (not part of this project) and loaded without torch
(its accountants need only numpy and scipy; opacus/__init__.py imports torch, which Debian does not
ship), so the opacus time is a lower bound of a real installation's. rdpdyn compare evaluates
every registered analysis, with epsilon minimised over a continuum of orders, not only the
sampled Gaussian on opacus' 151 orders.

usage: compare_vs_opacus.py RDPDYN SOURCE_DIR OPACUS_CLONE [RUNS]
"""
import json
import os
import subprocess
import sys
import tempfile

RDPDYN, SOURCE, OPACUS = sys.argv[1], sys.argv[2], sys.argv[3]
RUNS = sys.argv[4] if len(sys.argv) > 4 else "20"
OPACUS_SCRIPT = f'''
import sys, types
pkg = types.ModuleType("opacus"); pkg.__path__ = [{os.path.join(OPACUS, "opacus")!r}]; sys.modules["opacus"] = pkg
stub = types.ModuleType("opacus.optimizers"); stub.DPOptimizer = object; sys.modules["opacus.optimizers"] = stub
from opacus.accountants import RDPAccountant
accountant = RDPAccountant()
accountant.history = [(1.1, 0.01, 10000)]  # (noise_multiplier, sample_rate, steps)
print(accountant.get_epsilon(delta=1e-5))
'''

with tempfile.TemporaryDirectory() as tmp:
    script = os.path.join(tmp, "opacus_epsilon.py")
    with open(script, "w") as f:
        f.write(OPACUS_SCRIPT)
    config = os.path.join(SOURCE, "examples", "dpsgd_accounting.toml")
    report = os.path.join(tmp, "times.json")
    rdpdyn_cmd = f"{RDPDYN} compare {config} --json"
    opacus_cmd = f"/usr/bin/python3 {script}"
    print("opacus epsilon:", subprocess.run(opacus_cmd.split(), capture_output=True, text=True).stdout.strip())
    out = json.loads(subprocess.run(rdpdyn_cmd.split(), capture_output=True, text=True).stdout)
    sgm = next(a for a in out["analyses"] if a["name"] == "composition-sgm")
    print("rdpdyn composition-sgm epsilon:", sgm["epsilon"], "(recorded orders:", sgm["epsilon_recorded_orders"], ")")
    subprocess.run(["hyperfine", "--warmup", "2", "--runs", RUNS, "--export-json", report, "-N",
                    rdpdyn_cmd, opacus_cmd], check=True, stdout=subprocess.DEVNULL)
    results = json.load(open(report))["results"]
    rdpdyn_s, opacus_s = results[0]["median"], results[1]["median"]
    print(f"rdpdyn compare (every analysis): median {1e3 * rdpdyn_s:.1f} ms")
    print(f"opacus RDPAccountant script:     median {1e3 * opacus_s:.1f} ms")
    print(f"ratio opacus / rdpdyn: {opacus_s / rdpdyn_s:.2f}x")
