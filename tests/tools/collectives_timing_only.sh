#!/bin/sh
# ascendsim collectives --timing-only (ASCENDSIM_DATA=timing-only): no byte is moved, and every
# time is the same as with the bytes moved: the rows of an 8-rank AllReduce of 16 MiB agree in
# time and bandwidth, the check says NULL; asking to check is refused (exit 2); a bad
# ASCENDSIM_DATA value stops the run with a message.
set -u
ascendsim=$1
fail() { echo "FAIL: $*"; exit 1; }
row() { grep '^16777216 ' | awk -F'|' '{print $2 $3 $5}'; }
full=$("$ascendsim" collectives --config atlas-800t-a2 all_reduce -p 8 -b 16M -e 16M -n 2 -w 1 -c 0 | row)
timing=$("$ascendsim" collectives --config atlas-800t-a2 all_reduce -p 8 -b 16M -e 16M -n 2 -w 1 --timing-only)
echo "$timing" | grep -q '^16777216 .*| NULL ' || fail "timing-only row: $timing"
[ -n "$full" ] && [ "$full" = "$(echo "$timing" | row)" ] || fail "full '$full' vs timing-only '$(echo "$timing" | row)'"
out=$("$ascendsim" collectives --config atlas-800t-a2 all_reduce -p 8 --timing-only -c 1 2>&1)
[ $? -eq 2 ] && echo "$out" | grep -q "nothing for -c/--check to check" || fail "-c 1 with --timing-only: $out"
out=$(ASCENDSIM_DATA=bogus "$ascendsim" collectives --config atlas-800t-a2 all_reduce -p 2 -b 1K -e 1K 2>&1)
[ $? -ne 0 ] && echo "$out" | grep -q "ASCENDSIM_DATA is 'bogus': full or timing-only" || fail "bad ASCENDSIM_DATA: $out"
echo "timing-only ok: $full"
