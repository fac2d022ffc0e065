#!/usr/bin/env bash
# The project's C++ sources (PATTERN...: e.g. '*.cpp' '*.hpp'), relative to the root, sorted: every
# file but the build trees (build*/), without git (a fresh machine's checkout may have none).
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
for p in "$@"; do args+=(${args[@]+-o} -name "$p"); done
find . \( -path './build*' -o -path './.git' \) -prune -o -type f \( "${args[@]}" \) -print | sed 's|^\./||' | sort
