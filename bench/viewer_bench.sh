#!/usr/bin/env bash
# The offline trace viewer at scale (docs/performance.md, "The viewer"; issue #32): a run of COPIES
# small copies (bench/workloads/small-copies.yaml, 1,000,000 by default, about 1 GB of Chrome JSON)
# traced with ASCENDSIM_DATA=timing-only, turned into a page by `ascendsim view`, and opened in
# headless Chromium. Prints the trace's size, the `view` command's wall and CPU time and peak
# resident memory, the page's size, the time from starting Chromium to the first drawing of the
# whole run (and the part of it from the page's request), that first draw, and the median and
# slowest of five redraws of the whole run and of a thousandth of it (the page's "#bench").
#   bash bench/viewer_bench.sh [COPIES] [path/to/ascendsim]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
copies="${1:-1000000}"
ascendsim="${2:-$here/../build/release/tools/ascendsim}"
chromium="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$chromium" ]; then
  echo "no chromium (bash scripts/install-deps.sh --with-browser)" >&2
  exit 1
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
sed "s/times: 1000000/times: $copies/" "$here/workloads/small-copies.yaml" > "$out/copies.yaml"

ASCENDSIM_DATA=timing-only /usr/bin/time -f '%e' -o "$out/run.time" \
  "$ascendsim" run --workload "$out/copies.yaml" --set trace.max_size=64GiB \
  --trace "$out/trace.json" --report "$out/report.json" > /dev/null 2>&1
/usr/bin/time -f '%e %U %M' -o "$out/view.time" \
  "$ascendsim" view "$out/trace.json" --report "$out/report.json" -o "$out/trace.html" > /dev/null
read -r view_wall view_cpu view_peak < "$out/view.time"

mkdir "$out/profile"
started=$(date +%s%3N)
/usr/bin/time -f '%e %M' -o "$out/chromium.time" \
  "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$out/profile" --window-size=1400,1000 \
  --dump-dom "file://$out/trace.html#bench" > "$out/dom.html" 2> "$out/chromium.log"
body="$(grep -o '<body[^>]*>' "$out/dom.html" || true)"
field() { sed -n "s/.* data-$1=\"\\([^\"]*\\)\".*/\\1/p" <<< "$body"; }
drawn_at=$(field drawn-at-ms)
if [ -z "$drawn_at" ]; then
  echo "the page did not draw; Chromium said:" >&2
  tail -20 "$out/chromium.log" >&2
  exit 1
fi
read -r chromium_wall chromium_peak < "$out/chromium.time"
slices=$(grep -o 'data-drawn="[0-9]*"' "$out/dom.html" | head -1 | tr -dc 0-9)

awk -v copies="$copies" -v run="$(cat "$out/run.time")" \
    -v trace="$(stat -c %s "$out/trace.json")" -v events="$(field events)" \
    -v vw="$view_wall" -v vc="$view_cpu" -v vp="$view_peak" -v page="$(stat -c %s "$out/trace.html")" \
    -v launch=$((drawn_at - started)) -v request="$(field load-to-draw-ms)" \
    -v first="$(field first-draw-ms)" -v redraw="$(field redraw-ms)" -v redraw_max="$(field redraw-max-ms)" \
    -v zoomed="$(field redraw-zoomed-ms)" -v zoomed_max="$(field redraw-zoomed-max-ms)" \
    -v slices="$slices" -v cw="$chromium_wall" \
    -v cp="$chromium_peak" 'BEGIN {
  printf "copies                      %d (run: %.1f s)\n", copies, run
  printf "trace                       %.1f MB, %d events\n", trace / 1e6, events
  printf "ascendsim view              %.1f s wall, %.1f s CPU, peak %.0f MiB\n", vw, vc, vp / 1024
  printf "page                        %.1f MB\n", page / 1e6
  printf "Chromium start to drawn     %.1f s (from the page request: %.1f s)\n", launch / 1000, request / 1000
  printf "first draw                  %.0f ms (%d slices drawn)\n", first, slices
  printf "redraw, whole run           %.0f ms (median of 5; slowest %.0f ms)\n", redraw, redraw_max
  printf "redraw, 1/1000 of the run   %.0f ms (median of 5; slowest %.0f ms)\n", zoomed, zoomed_max
  printf "Chromium in all             %.1f s, peak %.0f MiB\n", cw, cp / 1024
}'
