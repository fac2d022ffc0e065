#!/usr/bin/python3
"""install:library_example (docs/guide-library.md): `cmake --install` of the build
tree into a fresh prefix, examples/library configured and built against that prefix alone
(CMAKE_PREFIX_PATH, no source directory on any include path), and its numbers checked against the
installed `rdpdyn` command on the same run:

- every row of account_training (R at alpha = 8 and epsilon after each epoch) equals `rdpdyn solve
  --json` of the run the example prints with --config, stopped at that step, to the bit;
- every analysis it evaluates by name equals that analysis' row of `rdpdyn compare --json`;
- dpsgd_epsilon links rdpdyn::math only (no PETSc, HDF5 or MPI library loaded) and agrees with
  compare's composition-sgm on examples/dpsgd_accounting.toml.

Usage: test_library_example.py BUILD_DIR SOURCE_DIR
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "cli"))
from checks import check, finish  # noqa: E402

build, source = map(pathlib.Path, sys.argv[1:3])
def run(*args, **kw):
    return subprocess.run([str(a) for a in args], check=True, capture_output=True, text=True, **kw).stdout


with tempfile.TemporaryDirectory(prefix="rdpdyn-install-") as tmp:
    tmp = pathlib.Path(tmp)
    prefix = tmp / "prefix"
    run("cmake", "--install", build, "--prefix", prefix)
    for f in ["bin/rdpdyn", "lib/cmake/rdpdyn/rdpdynConfig.cmake", "lib/cmake/rdpdyn/rdpdynConfigVersion.cmake",
              "include/rdpdyn/library/rdpdyn.hpp", "include/rdpdyn/rdpdyn_version.hpp"]:
        check(f"installed {f}", (prefix / f).is_file())
    cli = prefix / "bin" / "rdpdyn"
    version = run(cli, "--version")
    check(f"installed rdpdyn --version runs: {version!r}", "rdpdyn" in version)

    # The example against the installed package only.
    example = tmp / "example"
    env = dict(os.environ)
    env.pop("CMAKE_PREFIX_PATH", None)
    run("cmake", "-S", source / "examples" / "library", "-B", example, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
        f"-DCMAKE_PREFIX_PATH={prefix}", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", env=env)
    run("cmake", "--build", example, "-j1", env=env)
    commands = json.loads((example / "compile_commands.json").read_text())
    for c in commands:
        words = c["command"].split()
        includes = [w[2:] for w in words if w.startswith("-I")] + [words[i + 1] for i, w in enumerate(words)
                                                                    if w == "-isystem"]
        check(f"{c['file']}: no source directory on the include path ({includes})", not any(str(source.resolve()) in str(pathlib.Path(i).resolve()) for i in includes))
        check(f"{c['file']}: the prefix on the include path ({includes})", any(str(prefix) in i for i in includes))

    # account_training against `rdpdyn solve` of the run it prints.
    config = tmp / "run.toml"
    config.write_text(run(example / "account_training", "--config"))
    out = run(example / "account_training")
    print(out)
    rows = [line.split() for line in out.splitlines() if re.match(r"^\s*\d+\s", line)]
    check(f"at least three epochs accounted ({len(rows)})", len(rows) >= 3)
    for step, _, R8, epsilon, _ in rows:
        j = json.loads(run(cli, "solve", config, "--json", "--set", f"algorithm.steps={step}"))
        orders = j["orders"]
        check(f"solve stopped at {step} ({j['step']})", j["step"] == int(step))
        check(f"step {step}: R(8) {R8} == solve's {j['R'][orders.index(8)]!r}", float(R8) == j["R"][orders.index(8)])
        check(f"step {step}: epsilon {epsilon} == solve's {j['epsilon']!r}", float(epsilon) == j["epsilon"])
    trained = rows[-1][0]
    compare = json.loads(run(cli, "compare", config, "--json", "--set", f"algorithm.steps={trained}"))
    by_name = {a["name"]: a for a in compare["analyses"]}
    analyses = [line.split() for line in out.splitlines() if line.startswith("analysis ")]
    check(f"four analyses evaluated by name ({len(analyses)})", len(analyses) == 4)
    for words in analyses:
        name = words[1]
        entry = by_name[name]
        if "epsilon" in words:
            value = float(words[words.index("epsilon") + 1])
            check(f"{name}: epsilon {value!r} == compare's {entry['epsilon']!r}", entry["applies"] and value == entry["epsilon"])
            check(f"{name}: status {words[2]} == compare's {entry['status']}", words[2] == entry["status"])
        else:
            check(f"{name}: does not apply, as in compare", not entry["applies"])

    # The pure mathematics alone.
    libraries = run("ldd", example / "dpsgd_epsilon")
    for heavy in ("libpetsc", "libhdf5", "libmpi"):
        check(f"dpsgd_epsilon does not load {heavy}", heavy not in libraries)
    dpsgd = run(example / "dpsgd_epsilon")
    print(dpsgd)
    epsilon = float(re.search(r"epsilon (\S+)", dpsgd).group(1))
    sgm = {a["name"]: a for a in json.loads(run(cli, "compare", source / "examples" / "dpsgd_accounting.toml",
                                                "--json"))["analyses"]}["composition-sgm"]
    check(f"dpsgd_epsilon {epsilon!r} == compare's composition-sgm {sgm['epsilon']!r} to 1e-9", abs(epsilon - sgm["epsilon"]) <= 1e-9 * sgm["epsilon"])

finish()
