#!/usr/bin/python3
"""The PLD accountant against dp_accounting and opacus, side by side in one run (docs/performance.md).

  bench/pld_vs_dp_accounting.py BUILD_DIR --dp-accounting DIR [--opacus DIR] [--runs 5]

DIR for dp_accounting: the folder that holds the package dp_accounting (google/differential-privacy's
python/dp_accounting); for opacus: a folder on which `import opacus.accountants` works without torch
(opacus' accountants are numpy/scipy; its top-level package imports torch, which Debian does not ship,
so a stub package that only re-exports opacus/accountants is needed). Measures, on the DP-SGD example
(Poisson q = 0.01, noise multiplier 1.1, 10^4 steps, add/remove, delta = 1e-5):
  1. epsilon in process: rdpdyn's PLD (Google Benchmark, build/rdpdyn_bench_pld) against
     dp_accounting's PLDAccountant (pessimistic, default discretisation), medians of --runs;
  2. calibration whole process: `rdpdyn calibrate ... --for noise_multiplier` against a python3
     process calling opacus' get_noise_multiplier(accountant="prv"), medians of 3.
"""
import argparse, json, os, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
q, z, T, delta = 0.01, 1.1, 10000, 1e-5


def median_wall(cmd, runs, env=None):
    walls, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--dp-accounting", required=True)
    ap.add_argument("--opacus")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    print(f"load average before: {os.getloadavg()}")
    bench = subprocess.run([os.path.join(a.build, "rdpdyn_bench_pld"), "--benchmark_format=json",
                            f"--benchmark_repetitions={a.runs}", "--benchmark_report_aggregates_only=true"],
                           capture_output=True, text=True, check=True)
    rows = {}
    for b in json.loads(bench.stdout)["benchmarks"]:
        if b.get("aggregate_name") == "median":
            rows[b["run_name"]] = (b["real_time"] / 1e3, b.get("epsilon"))
    sys.path.insert(0, a.dp_accounting)
    import dp_accounting
    from dp_accounting import pld

    def dp_epsilon():
        acc = pld.PLDAccountant(neighboring_relation=dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE)
        acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), T)
        return acc.get_epsilon(delta)

    dp_epsilon()  # warm-up: lazy imports
    walls, eps = [], None
    for _ in range(a.runs):
        t0 = time.perf_counter()
        eps = dp_epsilon()
        walls.append(time.perf_counter() - t0)
    dp = statistics.median(walls)
    print(f"dp_accounting PLDAccountant (pessimistic, 1e-4): epsilon {eps!r}, {dp:.4f} s")
    for name, (t, e) in sorted(rows.items()):
        print(f"rdpdyn {name}: epsilon {e!r}, {t:.4f} s: dp_accounting / rdpdyn = {dp / t:.2f}x")
    cfg = os.path.join(ROOT, "examples", "dpsgd_accounting.toml")
    ours, out = median_wall([os.path.join(a.build, "rdpdyn"), "calibrate", cfg, "--epsilon", "2", "--delta", "1e-5",
                             "--for", "noise_multiplier"], 3)
    print(f"rdpdyn calibrate (whole process): {ours:.3f} s: {out.strip().splitlines()[-1][:160]}")
    if a.opacus:
        env = dict(os.environ, PYTHONPATH=a.opacus, PYTHONWARNINGS="ignore")
        script = ("from opacus.accountants.utils import get_noise_multiplier\n"
                  "print(repr(get_noise_multiplier(target_epsilon=2, target_delta=1e-5, sample_rate=0.01, steps=10000, "
                  "accountant='prv')))")
        theirs, out = median_wall(["/usr/bin/python3", "-c", script], 3, env)
        print(f"opacus get_noise_multiplier(accountant='prv') (whole process): {theirs:.3f} s -> {out.strip()}: "
              f"opacus / rdpdyn = {theirs / ours:.2f}x")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
