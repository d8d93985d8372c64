#!/bin/sh
# msprof on AscendSim: runs a program on the simulator and writes msprof's profile folder
# (`ascendsim msprof`, docs/traces.md). Installed in <prefix>/bin and, where CANN keeps it, in
# <prefix>/tools/profiler/bin (a link to this file).
here=$(dirname "$(readlink -f "$0")")
exec "$here/ascendsim" msprof "$@"
