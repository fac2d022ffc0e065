#!/usr/bin/env python3
"""Mutation fuzzing of the command line over the examples (docs/development.md, "Fuzzing").

    mutate_configs.py RDPDYN SOURCE_DIR [--count N] [--seed S] [--jobs J] [--keep DIR]

Each input is an example of SOURCE_DIR/examples with one to three mutations: a key deleted, a
value's type changed, a number set to 0, a negative, NaN, +-inf or a huge value (1e300, 2^62,
the int64 extremes), an array emptied, a table or array-of-tables entry duplicated, binary garbage
inserted, the text truncated or replaced,
arrays, inline tables or dotted keys nested past the limits. It runs `solve -o`, `compare -o` or `calibrate` (in
turn) in a scratch directory and requires: exit code 0 or 2, no signal, no run over 10 s, no
"internal error" on stderr, no file left behind on exit 2 and no temporary left on exit 0.
A run past 10 s is run again with 120 s: if it then ends cleanly it is listed as slow (a valid
but long run, not a failure), otherwise it is a hang.

Failures whose input sets a size (orders.count, steps, intervals, grid.cells, records, ...) to a
huge number are listed apart as size-limit cases (limits of models/run_limits, not this script's
business); they fail the run unless --defer-size-limits is given. Exit 0 when nothing failed.
"""
import argparse
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor

TIMEOUT_S = 10.0
RECHECK_S = 120.0
COMMANDS = ("solve", "compare", "calibrate")
# Example and command pairs slower than a few seconds unmutated (a mutation could only be
# refused or slower): left out so that a timeout means a hang, not a legitimately long run.
SLOW = {("fd_optimal_nonlinear", "calibrate"), ("altschuler_talwar_plateau", "compare")}
# Keys that size an allocation or a loop: a huge value there is a run-limit case.
SIZE_KEYS = {"count", "steps", "intervals", "cells", "record_every", "record_steps", "gamma_samples",
             "gamma_snapshots_per_step", "time", "n", "batch_size", "alpha_max"}
HUGE = [1e300, -1e300, 2**62, -(2**62), 2**63 - 1, -(2**63), 1.7976931348623157e308]
SPECIAL = [0, 0.0, -0.0, -1, -1.5, 5e-324, -5e-324, 1e-300, float("nan"), float("inf"), float("-inf"), 1, 2,
           1.0000000001]


# ---- TOML out (tomllib only reads) ----------------------------------------------------------------

def toml_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_scalar(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_scalar(x)}" for k, x in v.items()) + "}"
    return toml_scalar(str(v))


def toml_key(k):
    return k if k and all(c.isalnum() or c in "-_" for c in k) else toml_scalar(k)


def is_table_array(v):
    return isinstance(v, list) and v and all(isinstance(x, dict) for x in v)


def toml_dump(doc, prefix=""):
    lines, sub = [], []
    for k, v in doc.items():
        if isinstance(v, dict) or is_table_array(v):
            sub.append((k, v))
        else:
            lines.append(f"{toml_key(k)} = {toml_scalar(v)}")
    for k, v in sub:
        path = prefix + toml_key(k)
        if isinstance(v, dict):
            lines += ["", f"[{path}]", toml_dump(v, path + ".")]
        else:
            for entry in v:
                lines += ["", f"[[{path}]]", toml_dump(entry, path + ".")]
    return "\n".join(lines)


# ---- mutations ----------------------------------------------------------------------------------

def leaves(doc, path=()):
    """Every (container, key, path) of the document, tables and arrays included."""
    out = []
    items = doc.items() if isinstance(doc, dict) else enumerate(doc)
    for k, v in items:
        out.append((doc, k, path + (k,)))
        if isinstance(v, (dict, list)):
            out += leaves(v, path + (k,))
    return out


def name(path):
    return ".".join(str(p) for p in path)


def mutate_document(doc, rng, notes):
    spots = leaves(doc)
    if not spots:
        return False
    container, key, path = rng.choice(spots)
    value = container[key]
    kind = rng.choice(["delete", "type", "number", "number", "huge", "empty", "duplicate", "scale", "scale"])
    if kind == "delete" and isinstance(container, dict):
        del container[key]
        notes.append(("delete", name(path), None))
    elif kind == "duplicate" and isinstance(value, list) and value:
        value.append(rng.choice(value))
        notes.append(("duplicate-entry", name(path), None))
    elif kind == "empty":
        container[key] = rng.choice([[], {}, ""])
        notes.append(("empty", name(path), container[key]))
    elif kind == "scale":  # a plausible neighbour of a valid value: reaches past the first check
        numbers = [(c, k, p) for c, k, p in spots
                   if isinstance(c[k], (int, float)) and not isinstance(c[k], bool)]
        if not numbers:
            return False
        container, key, path = rng.choice(numbers)
        factor = rng.choice([0.5, 0.9, 1.1, 2.0])
        new = container[key] * factor
        container[key] = round(new) if isinstance(container[key], int) else new
        notes.append(("scale", name(path), container[key]))
    elif kind in ("number", "huge"):
        numbers = [(c, k, p) for c, k, p in spots
                   if isinstance(c[k], (int, float)) and not isinstance(c[k], bool)]
        if not numbers:
            return False
        container, key, path = rng.choice(numbers)
        new = rng.choice(HUGE if kind == "huge" else SPECIAL)
        if isinstance(container[key], float) and isinstance(new, int) and rng.random() < 0.5:
            new = float(new)
        container[key] = new
        notes.append(("huge" if kind == "huge" else "number", name(path), new))
    else:
        new = rng.choice(["text", True, 3, 0.5, [1, 2], {"a": 1}, [[1], [2]], ["x"], -7])
        container[key] = new
        notes.append(("type", name(path), new))
    return True


def mutate_text(text, rng, notes):
    kind = rng.choice(["garbage", "garbage", "truncate", "duplicate-table", "replace", "bytes-flip", "deep"])
    data = text.encode()
    if kind == "garbage":
        pos = rng.randrange(len(data) + 1)
        junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
        data = data[:pos] + junk + data[pos:]
    elif kind == "truncate":
        data = data[:rng.randrange(len(data) + 1)]
    elif kind == "duplicate-table":
        lines = text.splitlines(keepends=True)
        heads = [i for i, line in enumerate(lines) if line.lstrip().startswith("[")]
        if heads:
            i = rng.choice(heads)
            j = next((h for h in heads if h > i), len(lines))
            data = "".join(lines[:j] + lines[i:j] + lines[j:]).encode()
    elif kind == "deep":  # nesting and dotted keys past the parser's limits (docs/config.md)
        depth = rng.choice([65, 1000, 100000])
        piece = rng.choice(["[" * depth, "{a = " * depth, "[" * depth + "]" * depth,
                            ".".join(["k"] * depth) + " = 1"])
        data = (piece if piece.startswith("k") else "x = " + piece).encode() + b"\n" + data
    elif kind == "replace":
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 512)))
    else:
        data = bytearray(data)
        for _ in range(rng.randrange(1, 8)):
            if data:
                data[rng.randrange(len(data))] = rng.randrange(256)
        data = bytes(data)
    notes.append((kind, None, None))
    return data


def make_input(examples, rng):
    base = rng.choice(sorted(examples))
    text = examples[base]
    notes = []
    if rng.random() < 0.25:
        return base, mutate_text(text, rng, notes), notes
    doc = tomllib.loads(text)
    if "sweep" in doc and rng.random() < 0.75:
        del doc["sweep"]  # these commands refuse a [sweep]; its run is worth mutating
    for _ in range(rng.choice([1, 1, 2, 3])):
        mutate_document(doc, rng, notes)
    return base, toml_dump(doc).encode() + b"\n", notes


def is_size_case(notes):
    return any(kind == "huge" and path and path.split(".")[-1] in SIZE_KEYS for kind, path, _ in notes)


# ---- running ------------------------------------------------------------------------------------

def run_one(rdpdyn, index, base, data, notes, command, scratch_root):
    result = run_once(rdpdyn, index, base, data, notes, command, scratch_root, TIMEOUT_S)
    if result["code"] == "timeout" and not is_size_case(notes):
        # A valid run may be long (every step of a finite-difference solve recorded): given
        # RECHECK_S, one that ends cleanly is listed as slow; one that does not is a hang.
        again = run_once(rdpdyn, index, base, data, notes, command, scratch_root, RECHECK_S)
        if not again["problems"]:
            shutil.rmtree(result["dir"], ignore_errors=True)
            again["slow"] = True
            return again
    return result


def run_once(rdpdyn, index, base, data, notes, command, scratch_root, timeout):
    work = tempfile.mkdtemp(prefix=f"m{index}-", dir=scratch_root)
    config = os.path.join(work, "config.toml")
    with open(config, "wb") as f:
        f.write(data)
    out = os.path.join(work, "out.h5")
    args = [rdpdyn, command, config]
    args += ["--epsilon", "2", "--delta", "1e-5", "--json"] if command == "calibrate" else ["-o", out]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    start = time.monotonic()
    proc = subprocess.Popen(args, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                            start_new_session=True)
    try:
        _, err = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the whole session: MPI helpers included
        _, err = proc.communicate()
        code = "timeout"
    elapsed = time.monotonic() - start
    err = err.decode(errors="replace")
    left = sorted(f for f in os.listdir(work) if f != "config.toml")
    problems = []
    if code == "timeout":
        problems.append(f"no exit within {timeout:.0f} s")
    elif code < 0:
        problems.append(f"killed by signal {-code}")
    elif code not in (0, 2):
        problems.append(f"exit code {code}")
    if "internal error" in err:
        problems.append("stderr says internal error")
    if code == 2 and left:
        problems.append(f"exit 2 left {left}")
    if code == 0 and any(f != "out.h5" for f in left):
        problems.append(f"exit 0 left {left}")
    if not problems:
        shutil.rmtree(work, ignore_errors=True)
    return {"index": index, "base": base, "command": command, "notes": notes, "code": code, "elapsed": elapsed,
            "problems": problems, "slow": False, "stderr": err.strip().splitlines()[-1:] if err.strip() else [], "dir": work}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rdpdyn")
    parser.add_argument("source_dir")
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", help="directory for the inputs of failures (default: a temporary one)")
    parser.add_argument("--defer-size-limits", action="store_true",
                        help="size-limit cases are listed but do not fail the run")
    opts = parser.parse_args()

    examples = {}
    for f in sorted(os.listdir(os.path.join(opts.source_dir, "examples"))):
        if f.endswith(".toml"):
            with open(os.path.join(opts.source_dir, "examples", f)) as fh:
                examples[f[:-5]] = fh.read()
    rng = random.Random(opts.seed)
    jobs = []
    while len(jobs) < opts.count:
        command = COMMANDS[len(jobs) % len(COMMANDS)]
        base, data, notes = make_input(examples, rng)
        if (base, command) in SLOW:
            continue
        jobs.append((len(jobs), base, data, notes, command))

    scratch = opts.keep or tempfile.mkdtemp(prefix="rdpdyn-mutate-")
    os.makedirs(scratch, exist_ok=True)
    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        results = list(pool.map(lambda j: run_one(os.path.abspath(opts.rdpdyn), *j, scratch), jobs))
    total = time.monotonic() - start

    codes = {}
    for r in results:
        codes.setdefault((r["command"], r["code"]), 0)
        codes[(r["command"], r["code"])] += 1
    failed = [r for r in results if r["problems"]]
    size = [r for r in failed if is_size_case(r["notes"])]
    other = [r for r in failed if not is_size_case(r["notes"])]
    print(f"mutate_configs: {len(results)} inputs (seed {opts.seed}) in {total:.0f} s, "
          f"slowest {max(r['elapsed'] for r in results):.1f} s")
    for command in COMMANDS:
        per = {c: n for (cmd, c), n in codes.items() if cmd == command}
        print(f"  {command:9s} " + ", ".join(f"exit {c}: {n}" for c, n in sorted(per.items(), key=str)))
    ok0 = sum(1 for r in results if r["code"] == 0 and not r["problems"])
    ok2 = sum(1 for r in results if r["code"] == 2 and not r["problems"])
    slow = [r for r in results if r["slow"]]
    print(f"  total     exit 0: {ok0}, exit 2: {ok2}, failures: {len(other)}, size-limit cases: {len(size)}, "
          f"slow but finished within {RECHECK_S:.0f} s: {len(slow)}")
    for r in slow:
        print(f"SLOW #{r['index']} {r['command']} {r['base']} {r['notes']}: exit {r['code']} after {r['elapsed']:.1f} s "
              f"{r['stderr']}")
    for title, group in (("FAILURE", other), ("SIZE-LIMIT CASE", size)):
        for r in group:
            print(f"{title} #{r['index']} {r['command']} {r['base']} {r['notes']}: {'; '.join(r['problems'])}"
                  f" [{r['elapsed']:.1f} s] {r['stderr']} (input: {r['dir']}/config.toml)")
    failing = bool(other or (size and not opts.defer_size_limits))
    if not opts.keep and not failing:
        shutil.rmtree(scratch, ignore_errors=True)  # deferred cases: their mutations are printed above
    sys.exit(1 if failing else 0)


if __name__ == "__main__":
    main()
