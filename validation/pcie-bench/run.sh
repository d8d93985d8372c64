#!/bin/sh
# Regenerates reference.csv: runs pcie-bench's PCIe model on AscendSim's validation setups.
#
#   validation/pcie-bench/run.sh [PCIE_MODEL_CHECKOUT] > reference.csv
#
# With no argument, clones https://github.com/pcie-bench/pcie-model (or $PCIE_MODEL_URL) into a
# temporary directory and checks out the commit the committed reference.csv was made from (or
# $PCIE_MODEL_COMMIT); the clone is removed afterwards. Given a checkout, uses it as it is and
# warns on stderr if it is not at that commit. Needs git and python3 (standard library only).
set -eu

PINNED=40703cfeb6c7763977df98061326e7c1bdccf184
COMMIT=${PCIE_MODEL_COMMIT:-$PINNED}
URL=${PCIE_MODEL_URL:-https://github.com/pcie-bench/pcie-model.git}
HERE=$(cd "$(dirname "$0")" && pwd)

usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; }
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then usage; exit 0; fi
if [ $# -gt 1 ]; then usage >&2; exit 2; fi

if [ $# -eq 1 ]; then
  MODEL=$1
  HEAD=$(git -C "$MODEL" rev-parse HEAD 2>/dev/null || echo unknown)
  if [ "$HEAD" != "$COMMIT" ]; then
    echo "run.sh: $MODEL is at $HEAD, not $COMMIT; figures may differ from reference.csv" >&2
  fi
else
  TMP=$(mktemp -d)
  trap 'rm -rf "$TMP"' EXIT INT TERM
  MODEL=$TMP/pcie-model
  echo "run.sh: cloning $URL at $COMMIT" >&2
  git clone --quiet "$URL" "$MODEL"
  git -C "$MODEL" checkout --quiet "$COMMIT"
fi

python3 "$HERE/pcie_bench_reference.py" --model "$MODEL"
