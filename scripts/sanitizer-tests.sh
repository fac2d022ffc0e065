#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer.
# Builds everything but the benchmarks and the Python module (an instrumented extension cannot load
# into an uninstrumented interpreter) in build-asan/ (RelWithDebInfo: -O2 -g, so reports carry
# lines) and runs the quick tier and cli:mutations with the sanitizers halting on the first report
# (`ctest --test-dir build-asan` runs the rest too). Run after the README's test command (it assumes
# the packages are installed). Usage: scripts/sanitizer-tests.sh [CAMPAIGN_COUNT]; the soundness
# campaign, when run in this build, draws CAMPAIGN_COUNT runs (default 200).
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-200}"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDPDYN_SANITIZE=ON \
  -DRDPDYN_BUILD_BENCHMARKS=OFF -DRDPDYN_BUILD_PYTHON=OFF -DRDPDYN_CAMPAIGN_COUNT="$count" >/dev/null
cmake --build build-asan
# Leaks are reported except those the MPI stack keeps for the life of the process (tests/sanitizers/
# lsan.supp); every report is fatal. Open MPI's components stay loaded (no dlclose) and stacks are
# unwound through the uninstrumented libraries (fast_unwind_on_malloc=0), so a leak names its
# library and the suppressions can match it.
supp="$PWD/tests/sanitizers/lsan.supp"
export OMPI_MCA_mca_base_component_disable_dlclose=1
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:fast_unwind_on_malloc=0:strict_string_checks=1"
export LSAN_OPTIONS="suppressions=$supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# The quick tier (every unit and command-line test) and the mutation run of the command line; the
# campaigns of the full tier exercise the same code at length, uninstrumented, in the README's run.
ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -L '^quick$'
ctest --test-dir build-asan --output-on-failure -R '^cli:mutations$'
