#!/usr/bin/python3
"""DP-SGD epsilon and noise calibration in process: rdpdyn's Python module against dp_accounting's
PLDAccountant (issue 35, item 3).

  bench/dpsgd_vs_dp_accounting.py --dp-accounting DIR[:STUB_DIR] [--python-dir build/python] [--runs 5]
                                  [--only-epsilon | --only-calibration] [--commit LABEL]

DIR: the folder that holds the package dp_accounting (google/differential-privacy's
python/dp_accounting, e.g. `git archive` of it). dp_accounting's rdp module imports absl.logging;
where absl-py is not installed (Debian ships no python3-absl), give after a ':' a folder with a stub
package absl whose logging forwards to the standard logging module. Both are put first on sys.path.

Every setting is Poisson-sampled DP-SGD: sampling rate q, noise multiplier z (per clip norm), T
steps, target delta; under add/remove (dp_accounting NeighboringRelation.ADD_OR_REMOVE_ONE) and
replace-one (REPLACE_ONE). Measured in this one process, medians of --runs of wall time
(time.perf_counter) and process CPU time (time.process_time, all threads), after one warm-up of each:
  (a) dp_accounting: PLDAccountant (pessimistic, default value_discretization_interval 1e-4),
      compose(PoissonSampledDpEvent(q, GaussianDpEvent(z)), T), get_epsilon(delta);
  (b) rdpdyn.dpsgd_epsilon(q, z, T, delta, adjacency=...): its default, the certified PLD
      (composition-pld alone);
  (c) rdpdyn.compare(dp_event=SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(z)), T),
      report_delta=delta) (every registered analysis; the epsilon shown is composition-pld's, the
      certified PLD, and the best entry's name when another one is tighter). Replace-one is the
      override domain.adjacency = "replace" with domain.lipschitz_loss = true (every clipped gradient
      of norm <= C = S_g/2: the antipodal pair, dp_accounting's REPLACE_ONE pair, same z;
      docs/analyses.md section 3.4a);
  (d) calibration of z for a target (epsilon, delta): dp_accounting.calibrate_dp_mechanism with fresh
      PLDAccountants (default bracket and tolerance) against rdpdyn.dpsgd_noise_multiplier(...,
      adjacency=...) (its default: calibrate --analysis composition-pld). The column "dp_acc eps at
      rdpdyn z" is dp_accounting's epsilon at rdpdyn's z.
ratio = dp_accounting wall / rdpdyn wall (> 1: rdpdyn faster). Flags rows where rdpdyn's epsilon is
above dp_accounting's pessimistic one, or a call is less than 10x faster.
"""
import argparse, os, statistics, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# (name, q, z, T, delta): a subset of docs/analyses.md section 3.4a's settings (s..), plus the
# README example (ex): q 1e-3 .. 0.5, T 1 .. 1e5, delta 1e-3 .. 1e-10.
SETTINGS = [
    ("s01", 0.001, 1.0, 100, 1e-5),
    ("s04", 0.001, 3.0, 100, 1e-3),
    ("s05", 0.001, 1.0, 100000, 1e-5),
    ("s06", 0.001, 2.0, 10000, 1e-10),
    ("s07", 0.003, 0.9, 100000, 1e-5),
    ("s09", 0.01, 0.5, 1000, 1e-5),
    ("ex", 0.01, 1.1, 10000, 1e-5),
    ("s11", 0.01, 1.0, 10000, 1e-7),
    ("s12", 0.01, 2.0, 100000, 1e-8),
    ("s14", 0.02, 1.1, 5000, 1e-3),
    ("s16", 0.05, 1.5, 2000, 1e-9),
    ("s17", 0.1, 1.0, 100, 1e-5),
    ("s20", 0.2, 2.0, 1000, 1e-5),
    ("s23", 0.5, 1.0, 10, 1e-5),
    ("s25", 0.5, 5.0, 1000, 1e-10),
    ("s26", 0.01, 1.0, 1, 1e-5),
    ("s28", 0.1, 2.0, 1, 1e-10),
]
# (name, q, T, target epsilon, delta, adjacency)
CALIBRATIONS = [
    ("c1", 0.01, 10000, 2.0, 1e-5, "add-remove"),
    ("c2", 0.001, 100000, 1.0, 1e-8, "add-remove"),
    ("c3", 0.1, 1000, 8.0, 1e-6, "replace"),
]


def measure(fn, runs):
    """Medians of wall and process CPU seconds over `runs` calls, and the last result."""
    walls, cpus, out = [], [], None
    for _ in range(runs):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        cpus.append(time.process_time() - c0)
        walls.append(time.perf_counter() - w0)
    return statistics.median(walls), statistics.median(cpus), out


def fmt_s(wall, cpu):
    return f"{wall:.4g} ({cpu:.3g})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dp-accounting", required=True)
    ap.add_argument("--python-dir", default=os.path.join(ROOT, "build", "python"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--commit", default="", help="dp_accounting commit, printed only")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--only-epsilon", action="store_true")
    g.add_argument("--only-calibration", action="store_true")
    a = ap.parse_args()
    for d in reversed(a.dp_accounting.split(os.pathsep)):
        sys.path.insert(0, d)
    sys.path.insert(0, a.python_dir)
    import dp_accounting
    from dp_accounting import pld
    import rdpdyn

    NR = dp_accounting.NeighboringRelation
    REL = {"add-remove": NR.ADD_OR_REMOVE_ONE, "replace": NR.REPLACE_ONE}
    # Replace-one in rdpdyn: the antipodal pair needs the declared norm bound (see the docstring).
    OVR = {"add-remove": {}, "replace": {"domain.adjacency": "replace", "domain.lipschitz_loss": True}}

    def event(q, z, T):
        return dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), T)

    def dp_eps(q, z, T, delta, adj):
        acc = pld.PLDAccountant(neighboring_relation=REL[adj])
        acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), T)
        return acc.get_epsilon(delta)

    def rd_compare(q, z, T, delta, adj):
        c = rdpdyn.compare(dp_event=event(q, z, T), overrides={**OVR[adj], "report.delta": delta})
        return c["composition-pld"].epsilon, c.best["name"], c.best["epsilon"]

    print(f"rdpdyn {rdpdyn.__version__} ({rdpdyn._rdpdyn.__file__}); dp_accounting {dp_accounting.__file__}"
          f"{' at ' + a.commit if a.commit else ''}; python {sys.version.split()[0]}; runs {a.runs}")
    print(f"load average before: {os.getloadavg()}")
    # Warm-up: lazy imports, FFT plans.
    dp_eps(0.01, 1.1, 100, 1e-5, "add-remove")
    rdpdyn.dpsgd_epsilon(0.01, 1.1, 100, 1e-5)
    rdpdyn.dpsgd_epsilon(0.01, 1.1, 100, 1e-5, adjacency="replace")
    rd_compare(0.01, 1.1, 100, 1e-5, "add-remove")
    flags = []

    if not a.only_calibration:
        print("\n(a) dp_accounting PLDAccountant vs (b) rdpdyn.dpsgd_epsilon (PLD) and (c) rdpdyn.compare "
              "(composition-pld); times: median wall s (CPU s); ratio = dp_acc wall / rdpdyn wall\n")
        print("| setting (q, z, T, delta) | adj | dp_acc eps | dp_acc s | dpsgd_epsilon eps | s | ratio "
              "| compare pld eps | s | ratio | pld/dp_acc |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for name, q, z, T, delta in SETTINGS:
            for adj in ("add-remove", "replace"):
                dw, dc, de = measure(lambda: dp_eps(q, z, T, delta, adj), a.runs)
                bw, bc, be = measure(lambda: rdpdyn.dpsgd_epsilon(q, z, T, delta, adjacency=adj), a.runs)
                b_cols = f"{be:.6g} | {fmt_s(bw, bc)} | {dw / bw:.1f}x"
                cw, cc, (ce, best, best_eps) = measure(lambda: rd_compare(q, z, T, delta, adj), a.runs)
                note = "" if best == "composition-pld" else f" (best {best} {best_eps:.6g})"
                setting = f"{name} ({q:g}, {z:g}, {T:g}, {delta:g})"
                print(f"| {setting} | {adj} | {de:.6g} | {fmt_s(dw, dc)} | {b_cols} | {ce:.6g}{note} | "
                      f"{fmt_s(cw, cc)} | {dw / cw:.1f}x | {ce / de:.5f} |", flush=True)
                if be > de:
                    flags.append(f"{setting} {adj}: dpsgd_epsilon {be:.6g} > dp_accounting {de:.6g}")
                if dw / bw < 10:
                    flags.append(f"{setting} {adj}: dpsgd_epsilon only {dw / bw:.1f}x faster")
                if dw / cw < 10:
                    flags.append(f"{setting} {adj}: compare only {dw / cw:.1f}x faster")

    if not a.only_epsilon:
        print("\n(d) calibration of the noise multiplier; times: median wall s (CPU s); "
              "ratio = dp_acc wall / rdpdyn.dpsgd_noise_multiplier wall\n")
        print("| setting (q, T, eps, delta) | adj | dp_acc z | dp_acc s | rdpdyn z | s | ratio "
              "| dp_acc eps at rdpdyn z |")
        print("|---|---|---|---|---|---|---|---|")
        for name, q, T, eps, delta, adj in CALIBRATIONS:
            def dp_cal():
                return dp_accounting.calibrate_dp_mechanism(
                    lambda: pld.PLDAccountant(neighboring_relation=REL[adj]),
                    lambda zz: event(q, zz, T), eps, delta)

            dw, dc, dz = measure(dp_cal, a.runs)
            pw, pc, pz = measure(lambda: rdpdyn.dpsgd_noise_multiplier(q, T, eps, delta, adjacency=adj), a.runs)
            cross = dp_eps(q, pz, T, delta, adj)
            setting = f"{name} ({q:g}, {T:g}, {eps:g}, {delta:g})"
            print(f"| {setting} | {adj} | {dz:.6g} | {fmt_s(dw, dc)} | {pz:.6g} | {fmt_s(pw, pc)} | "
                  f"{dw / pw:.1f}x | {cross:.6g} |", flush=True)
            if dw / pw < 10:
                flags.append(f"{setting} {adj}: dpsgd_noise_multiplier only {dw / pw:.1f}x faster")

    print(f"\nload average after: {os.getloadavg()}")
    print("flags:" if flags else "flags: none")
    for f in flags:
        print(f"- {f}")


if __name__ == "__main__":
    main()
