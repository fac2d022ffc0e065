#!/usr/bin/env bash
# The tree is formatted by .clang-format (clang-format-14): exits non-zero naming the files that are not.
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files '*.cpp' '*.hpp' | xargs clang-format-14 --dry-run --Werror
echo "format: $(git ls-files '*.cpp' '*.hpp' | wc -l) files formatted"
