#!/usr/bin/env bash
# The C and C++ sources in the style of .clang-format (clang-format 14, Debian's clang-format-14,
# installed by ci/install-deps.sh): checks every tracked .c/.h/.cpp/.cu/.cuh file and fails
# naming each that differs; --fix rewrites them. ctest `format` runs the check.
#
# Usage: ci/format.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/.."
tool="${CLANG_FORMAT:-clang-format-14}"
command -v "$tool" >/dev/null || { echo "format: $tool not found (ci/install-deps.sh installs clang-format-14)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.cu' '*.cuh')
if [ "${1:-}" = "--fix" ]; then
  "$tool" -i "${files[@]}"
  echo "format: ${#files[@]} files formatted"
else
  "$tool" --dry-run -Werror "${files[@]}"
  echo "format: ${#files[@]} files as .clang-format says"
fi
