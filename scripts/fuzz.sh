#!/usr/bin/env bash
# Fuzzes the configuration loader (tests/fuzz/fuzz_config.cpp; docs/development.md, "Fuzzing") for SECONDS
# (default 90): builds it with clang-14, libFuzzer, ASan and UBSan in build-fuzz (no PETSc, no
# HDF5), runs it on a scratch copy of the seed corpus, and exits non-zero on any finding (crash,
# hang over 10 s, sanitizer report, memory over 4 GiB, an exception other than SpecError).
# The inputs of findings are kept in build-fuzz/findings/. A longer run: scripts/fuzz.sh 3600.
set -euo pipefail
seconds=${1:-90}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RDPDYN_FUZZ_BUILD_DIR:-$root/build-fuzz}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
# -O1 -g without NDEBUG: assertions stay on, reports have lines.
cmake -S "$root" -B "$build" -G Ninja -DRDPDYN_FUZZ=ON -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" "${launcher[@]}" >/dev/null
cmake --build "$build" -j2 --target fuzz_config

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/corpus" "$build/findings"
cp "$root"/tests/fuzz/corpus/* "$scratch/corpus/"
echo "fuzz: running $build/fuzz_config for ${seconds} s (findings go to $build/findings/)"
status=0
# -error_exitcode / -timeout_exitcode: any finding is a non-zero exit; leaks are findings too.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$build/fuzz_config" "$scratch/corpus" -dict="$root/tests/fuzz/toml.dict" -max_total_time="$seconds" \
  -timeout=10 -rss_limit_mb=4096 -max_len=65536 -error_exitcode=77 -timeout_exitcode=70 \
  -artifact_prefix="$build/findings/" -print_final_stats=1 >"$build/fuzz.log" 2>&1 || status=$?
# The log has a line per new input; CI shows its end (the report of a finding) and the totals.
if [ "$status" -ne 0 ]; then
  { grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' "$build/fuzz.log" || true; } | tail -n 80 >&2
  echo "fuzz: FAILED (exit $status); inputs in $build/findings/, log $build/fuzz.log" \
    "(reproduce: $build/fuzz_config FILE)" >&2
  exit 1
fi
grep -E '^(Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)' "$build/fuzz.log" || true
echo "fuzz: no finding in ${seconds} s (log $build/fuzz.log)"
