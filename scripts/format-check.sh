#!/usr/bin/env bash
# The tree is formatted by .clang-format (clang-format-14): exits non-zero naming the files that are not.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/source-files.sh '*.cpp' '*.hpp' | xargs clang-format-14 --dry-run --Werror
echo "format: $(scripts/source-files.sh '*.cpp' '*.hpp' | wc -l) files formatted"
