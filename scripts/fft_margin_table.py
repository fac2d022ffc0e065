#!/usr/bin/env python3
"""Summarise the lines of the FFT round-off probe (accounting/pld/fft_roundoff_probe.hpp) as the
margin table of docs/pld.md section 4.

Each line of the probe's file is one FFT composition of compose_in_fourier:
    n=<N> parts=<distinct steps> count=<sum of counts> bound=<L1 bound> measured=<L1 distance> margin=<bound/measured>
the bound being the certified (assumed) L1 round-off bound and `measured` the L1 distance of the
double result to a long double recomputation, both in the tilted scale. A margin below 1 means the
assumed bound fails on that composition: the script says so loudly and exits 1.

To regenerate (the whole test suite with the probe on; a build in build/):
    rm -f /tmp/probe.txt
    RDPDYN_FFT_ROUNDOFF_PROBE=/tmp/probe.txt ctest --test-dir build -j2
    python3 scripts/fft_margin_table.py /tmp/probe.txt

usage: fft_margin_table.py PROBE_FILE [--worst K] [--per-length]
(lengths grouped in bands of a factor 8 unless --per-length)
"""
import argparse
import math
import statistics
import sys


def parse(path):
    rows, bad = [], 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                fields = dict(item.split("=", 1) for item in line.split())
                rows.append({"n": int(fields["n"]), "parts": int(fields["parts"]), "count": int(fields["count"]),
                             "bound": float(fields["bound"]), "measured": float(fields["measured"]),
                             "margin": float(fields["margin"])})
            except (ValueError, KeyError):
                bad += 1
    return rows, bad


def g(x):
    return "inf" if math.isinf(x) else f"{x:.3g}"


def summary_row(label, rows):
    margins = sorted(r["margin"] for r in rows)
    exact = sum(1 for r in rows if r["measured"] == 0.0)
    return (f"| {label} | {len(rows)} | {exact} | {g(margins[0])} | {g(statistics.median(margins))} | "
            f"{g(margins[-1])} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("probe_file")
    ap.add_argument("--worst", type=int, default=8, help="how many of the smallest margins to list")
    ap.add_argument("--per-length", action="store_true", help="one row per length n instead of bands")
    args = ap.parse_args()
    rows, bad = parse(args.probe_file)
    if not rows:
        sys.exit(f"{args.probe_file}: no probe lines")
    print("| n | compositions | measured 0 | min margin | median margin | max margin |")
    print("|---|---|---|---|---|---|")
    # bands [2^(3j), 2^(3j+3)): 64-384, 512-3072, ... (n is 2^k or 3 2^k)
    key = (lambda r: r["n"]) if args.per_length else (lambda r: int(math.log2(r["n"])) // 3)
    for k in sorted({key(r) for r in rows}):
        band = [r for r in rows if key(r) == k]
        lo, hi = min(r["n"] for r in band), max(r["n"] for r in band)
        print(summary_row(str(lo) if lo == hi else f"{lo} - {hi}", band))
    print(summary_row("all", rows))
    print()
    print("| compositions of | compositions | measured 0 | min margin | median margin | max margin |")
    print("|---|---|---|---|---|---|")
    for label, test in (("one part, count 1", lambda r: r["parts"] == 1 and r["count"] == 1),
                        ("one part, count 2 - 999", lambda r: r["parts"] == 1 and 2 <= r["count"] < 1000),
                        ("one part, count >= 1000", lambda r: r["parts"] == 1 and r["count"] >= 1000),
                        ("several parts", lambda r: r["parts"] > 1)):
        group = [r for r in rows if test(r)]
        if group:
            print(summary_row(label, group))
    print()
    print(f"The {min(args.worst, len(rows))} smallest margins:")
    print()
    print("| n | parts | total count | bound (L1, tilted) | measured (L1, tilted) | margin |")
    print("|---|---|---|---|---|---|")
    for r in sorted(rows, key=lambda r: r["margin"])[: args.worst]:
        print(f"| {r['n']} | {r['parts']} | {r['count']} | {r['bound']:.3e} | {r['measured']:.3e} | "
              f"{g(r['margin'])} |")
    if bad:
        print(f"\n({bad} unreadable line(s) skipped)")
    below = [r for r in rows if r["margin"] < 1.0]
    if below:
        print(f"\nFINDING: {len(below)} composition(s) with margin below 1: the measured round-off exceeds "
              "the assumed bound", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
