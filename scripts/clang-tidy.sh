#!/usr/bin/env bash
# clang-tidy over the sources with the checks of .clang-tidy (each justified there): configures a
# compile database in build-tidy (no build), runs clang-tidy-14 on every .cpp of the project with
# two jobs, and exits non-zero on any finding.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RDPDYN_TIDY_BUILD_DIR:-$root/build-tidy}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
cd "$root"
# examples/library/ builds against an installed rdpdyn (its own CMake project): not in this database.
files=$(scripts/source-files.sh '*.cpp' | grep -v -E '^(tests/fuzz|examples/library)/')
# GCC's -Wno-restrict and similar flags are unknown to clang: ignore them.
printf '%s\n' $files | xargs -P 2 -n 8 clang-tidy-14 -p "$build" --quiet --extra-arg=-Wno-unknown-warning-option \
  --header-filter="^$root/(numerics|dynamics|accounting|solver|models|analyses|validation|commands|io|apps|python|library)/" 2>&1 |
  grep -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter|^Use -system-headers' |
  tee "$build/tidy.log" || true
if grep -q -E ': (warning|error):' "$build/tidy.log"; then
  echo "clang-tidy: findings above (checks in .clang-tidy)" >&2
  exit 1
fi
echo "clang-tidy: no findings in $(printf '%s\n' $files | wc -l) files"
