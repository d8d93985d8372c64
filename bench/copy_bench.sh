#!/usr/bin/env bash
# The copy benchmark matrix of docs/performance.md: 1 GiB H2D on one and on eight devices of
# atlas-800t-a2, at the default 64 KiB chunks and at MPS (256 B) granularity, plus 4 GiB on one
# device to show wall time growing linearly with bytes; then 1 GiB D2D inside one device's HBM
# with sustained and with cycle memory timing.
set -euo pipefail
bench="${1:-build/release/bench/copy_bench}"
"$bench" --devices 1
"$bench" --devices 8
"$bench" --devices 1 --gib 4
"$bench" --devices 1 --chunk 256
"$bench" --devices 8 --chunk 256
"$bench" --devices 1 --d2d 1
"$bench" --devices 1 --d2d 1 --timing cycle
"$bench" --devices 1 --timing cycle
