#!/bin/sh
# docs/validation.md's validation table is generated: the block between
# `<!-- generated: ascendsim validate --format markdown -->` and `<!-- end of generated table -->`
# must be what that command prints now (every case run; the figures are the model's, live).
# Usage: validate_docs.sh ASCENDSIM DOCS WORKDIR
set -u
bin=$1 docs=$2 work=$3
mkdir -p "$work"
awk '
  index($0, "<!-- generated: ascendsim validate --format markdown") == 1 { on = 1; n++; next }
  on && /^<!-- end of generated table/ { on = 0; next }
  on { print }
  END { if (n != 1) { print n + 0 > "/dev/stderr"; exit 1 } }
' "$docs" > "$work/docs.md" 2> "$work/blocks.txt" || {
  echo "docs/validation.md has $(cat "$work/blocks.txt") generated validation tables (expected 1)"
  exit 1
}
"$bin" validate --format markdown > "$work/cli.md" 2> "$work/cli.err"
status=$?
if [ $status -gt 1 ]; then
  echo "ascendsim validate failed (exit $status):"
  cat "$work/cli.err"
  exit 1
fi
if ! diff -u "$work/docs.md" "$work/cli.md"; then
  echo "the validation table of docs/validation.md is stale: run scripts/refresh-validation-docs.py ASCENDSIM"
  exit 1
fi
echo "validate: the docs table is current"
