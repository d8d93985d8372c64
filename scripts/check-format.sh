#!/usr/bin/env bash
# Fails when a C or C++ file of the project differs from what .clang-format makes of it (CI runs
# this). `bash scripts/check-format.sh --fix` formats them in place instead.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.c' '*.cpp' '*.h')
if [[ "${1:-}" == "--fix" ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
if ! clang-format --dry-run --Werror "${files[@]}" 2> /tmp/ascendsim-format.log; then
  grep -E "^[^ ].*: (error|warning):" /tmp/ascendsim-format.log | cut -d: -f1 | sort -u | sed 's/^/unformatted: /'
  echo "check-format: $(grep -cE ': (error|warning):' /tmp/ascendsim-format.log) lines differ from .clang-format; run bash scripts/check-format.sh --fix"
  exit 1
fi
echo "check-format: ${#files[@]} files follow .clang-format"
