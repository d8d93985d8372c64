#!/bin/sh
# docs/configuration.md's tables of settings are generated from their one declaration
# (spec/machine_settings.cpp, spec/memory_fields.cpp): each block between a
# `<!-- generated: ascendsim config fields --section S --markdown ...-->` marker and
# `<!-- end of generated table -->` must be what that command prints, and every section the
# command knows must have its block.
# Usage: config_fields_docs.sh ASCENDSIM DOCS WORKDIR
set -u
bin=$1 docs=$2 work=$3
mkdir -p "$work"
failed=0
sections=$("$bin" config fields --markdown | sed -n 's/^### `\(.*\)`$/\1/p')
[ -n "$sections" ] || { echo "config fields --markdown printed no sections"; exit 1; }
for s in $sections; do
  awk -v s="$s" '
    index($0, "<!-- generated: ascendsim config fields --section " s " --markdown") == 1 { on = 1; n++; next }
    on && /^<!-- end of generated table/ { on = 0; next }
    on { print }
    END { if (n != 1) { print n + 0 > "/dev/stderr"; exit 1 } }
  ' "$docs" > "$work/docs-$s.md" 2> "$work/blocks-$s.txt" || {
    echo "docs/configuration.md: section '$s' has $(cat "$work/blocks-$s.txt") generated blocks (expected 1)"
    failed=1
    continue
  }
  "$bin" config fields --section "$s" --markdown > "$work/cli-$s.md"
  if ! diff -u "$work/docs-$s.md" "$work/cli-$s.md"; then
    echo "the '$s' table of docs/configuration.md is stale: run scripts/refresh-config-docs.py ASCENDSIM (or paste ascendsim config fields --section '$s' --markdown between its markers)"
    failed=1
  fi
done
[ $failed = 0 ] && echo "config fields: every section's docs table is current"
exit $failed
