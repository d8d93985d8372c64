#!/bin/sh
# Re-runs the DRAM reference figures: the five request patterns of
# tests/models/dram_reference_test.cpp on Ramulator 2 and DRAMSys 5.0, configured as AscendSim's
# configs/memory/hbm2.yaml, and on Ramulator 2 as configs/memory/hbm3.yaml, with the
# bank-group-interleaved mapping (README.md says how).
#
#   validation/dram/run.sh [RAMULATOR2_CHECKOUT|-] [DRAMSYS_CHECKOUT|-] > reference.csv
#
# A missing or '-' checkout is cloned from its public repository at the commit reference.csv was
# made from. Both are built against Debian packages (libyaml-cpp-dev, libspdlog-dev, libfmt-dev,
# libsystemc-dev, libsqlite3-dev, nlohmann-json3-dev; plus git, cmake, ninja-build, a C++20
# compiler); Ramulator 2's command-line parser (p-ranav/argparse, header only, not packaged) is
# cloned at v2.9 unless ARGPARSE_SRC names a copy. Nothing is downloaded while building.
# Environment: WORK (build directory, default a temporary one removed afterwards), REQUESTS
# (64 B requests per pattern, default 2097152), JOBS (parallel compiles, default 2),
# SIMULATORS (default "ramulator2 dramsys"), RAMULATOR_BIN (an already built ramulator2 to run
# instead of building the checkout).
# Prints CSV: simulator,version,pattern,requests,bytes,seconds_simulated,gb_per_s.
set -eu

RAMULATOR_URL=https://github.com/CMU-SAFARI/ramulator2.git
RAMULATOR_COMMIT=be93be78055d922aa1d4d33e15bcc8f2b0c61a9d  # tag v2.0a
ARGPARSE_URL=https://github.com/p-ranav/argparse.git
ARGPARSE_COMMIT=997da9255618311d1fcb0135ce86022729d1f1cb  # tag v2.9
DRAMSYS_URL=https://github.com/tukl-msd/DRAMSys.git
DRAMSYS_COMMIT=8e021eada2cb937d5be24dbd02f3980e2193d6ec  # tag v5.0
REQUESTS=${REQUESTS:-2097152}
JOBS=${JOBS:-2}
SIMULATORS=${SIMULATORS:-ramulator2 dramsys}
PATTERNS="sequential_read random_read sequential_write random_2to1 stride_4KiB"
# HBM3 also: random single 32 B bursts (a kernel's gathers, `ascendsim validate`).
PATTERNS_HBM3="$PATTERNS random_read_32B"
HERE=$(cd "$(dirname "$0")" && pwd)

if [ $# -gt 2 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
RAMULATOR=${1:--}
DRAMSYS=${2:--}

if [ -z "${WORK:-}" ]; then
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT INT TERM
fi
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
say() { echo "run.sh: $*" >&2; }

# checkout URL COMMIT DIR: DIR holds the repository at COMMIT (cloned if absent).
checkout() {
  if [ ! -d "$3/.git" ] && [ ! -f "$3/.git" ]; then
    say "cloning $1 at $2"
    git clone --quiet "$1" "$3"
  fi
  git -C "$3" checkout --quiet "$2"
}
# warn_commit DIR COMMIT: a given checkout is used as it is.
warn_commit() {
  head=$(git -C "$1" rev-parse HEAD 2>/dev/null || echo unknown)
  [ "$head" = "$2" ] || say "$1 is at $head, not $2; figures may differ from reference.csv"
}

# The traces: 2 lines (two 32 B bursts) per 64 B request, as make_traces.cpp explains.
mkdir -p "$WORK/traces" "$WORK/traces-hbm3"
c++ -std=c++17 -O2 -o "$WORK/make_traces" "$HERE/make_traces.cpp"
"$WORK/make_traces" "$WORK/traces" "$REQUESTS" hbm2
"$WORK/make_traces" "$WORK/traces-hbm3" "$REQUESTS" hbm3

echo "simulator,version,pattern,requests,bytes,seconds_simulated,gb_per_s"

for simulator in $SIMULATORS; do
  case $simulator in
  ramulator2)
    if [ "$RAMULATOR" = "-" ]; then
      RAMULATOR=$WORK/ramulator2
      checkout "$RAMULATOR_URL" "$RAMULATOR_COMMIT" "$RAMULATOR"
    else
      warn_commit "$RAMULATOR" "$RAMULATOR_COMMIT"
    fi
    bin=${RAMULATOR_BIN:-}
    if [ -z "$bin" ]; then
      ARGPARSE=${ARGPARSE_SRC:-$WORK/argparse}
      [ -n "${ARGPARSE_SRC:-}" ] || checkout "$ARGPARSE_URL" "$ARGPARSE_COMMIT" "$ARGPARSE"
      # Ramulator 2's CMake fetches yaml-cpp and spdlog; these stand-ins hand it Debian's instead.
      mkdir -p "$WORK/shims/yaml-cpp" "$WORK/shims/spdlog"
      cat > "$WORK/shims/yaml-cpp/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.14)
find_package(yaml-cpp REQUIRED CONFIG)
set_target_properties(yaml-cpp PROPERTIES IMPORTED_GLOBAL TRUE)
EOF
      cat > "$WORK/shims/spdlog/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.14)
find_package(spdlog REQUIRED CONFIG)
set_target_properties(spdlog::spdlog fmt::fmt PROPERTIES IMPORTED_GLOBAL TRUE)
add_library(spdlog INTERFACE)
target_link_libraries(spdlog INTERFACE spdlog::spdlog)
EOF
      build=$WORK/ramulator2-build
      cmake -S "$RAMULATOR" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
        -DFETCHCONTENT_SOURCE_DIR_YAML-CPP="$WORK/shims/yaml-cpp" \
        -DFETCHCONTENT_SOURCE_DIR_SPDLOG="$WORK/shims/spdlog" \
        -DFETCHCONTENT_SOURCE_DIR_ARGPARSE="$ARGPARSE" >&2
      cmake --build "$build" --target ramulator-exe -j "$JOBS" >&2
      bin=$build/ramulator2  # loads libramulator.so from the checkout (its output directory)
    fi
    version="v2.0a $(git -C "$RAMULATOR" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
    # Two configurations of the HBM2 device: pseudo-channels sharing their channel's controller
    # (Ramulator 2's HBM2 as it is meant) and each pseudo-channel a controller of its own (the
    # queues AscendSim's model has); README.md says why both. Then the HBM3 device, each
    # pseudo-channel a controller of its own.
    for config in hbm2 hbm2_pc_channels hbm3_pc_channels; do
    case $config in
      hbm3*) traces=$WORK/traces-hbm3 tck=0.625e-9 patterns=$PATTERNS_HBM3 ;;  # tCK at 1600 MHz
      *) traces=$WORK/traces tck=1e-9 patterns=$PATTERNS ;;
    esac
    for p in $patterns; do
      case $p in
        *_32B) per=1 ;;  # one 32 B burst per request
        *) per=2 ;;      # 64 B requests, two bursts each
      esac
      out=$(cd "$WORK" && "$bin" -f "$HERE/ramulator2_$config.yaml" \
        -p "Frontend.path=$traces/$p.ramulator")
      # One request is one 32 B burst; the run ends when the front end has handed over its last
      # request (what is still queued then, at most 32 per channel, is not waited for).
      echo "$out" | awk -v sim="ramulator2_$config" -v ver="$version" -v p="$p" -v tck="$tck" \
        -v per="$per" '
        $1 == "memory_system_cycles:" { cycles = $2 }
        $1 == "total_num_read_requests:" { n += $2 }
        $1 == "total_num_write_requests:" { n += $2 }
        END {
          if (cycles == 0) { print "run.sh: no cycle count from Ramulator 2" > "/dev/stderr"; exit 1 }
          bytes = n * 32; s = cycles * tck
          printf "%s,%s,%s,%d,%d,%.9f,%.2f\n", sim, ver, p, n / per, bytes, s, bytes / s / 1e9 }'
    done
    done
    ;;
  dramsys)
    if [ "$DRAMSYS" = "-" ]; then
      DRAMSYS=$WORK/dramsys
      checkout "$DRAMSYS_URL" "$DRAMSYS_COMMIT" "$DRAMSYS"
    else
      warn_commit "$DRAMSYS" "$DRAMSYS_COMMIT"
    fi
    # DRAMSys looks for SystemC with find_package(SystemCLanguage), which Debian's
    # libsystemc-dev does not provide, and downloads the SQLite amalgamation; these stand-ins
    # name Debian's libraries instead.
    mkdir -p "$WORK/shims/systemc" "$WORK/shims/sqlite3"
    cat > "$WORK/shims/systemc/SystemCLanguageConfig.cmake" <<'EOF'
if(NOT TARGET SystemC::systemc)
  find_library(DEBIAN_SYSTEMC_LIBRARY systemc REQUIRED)
  find_path(DEBIAN_SYSTEMC_INCLUDE systemc.h REQUIRED)
  add_library(SystemC::systemc UNKNOWN IMPORTED GLOBAL)
  set_target_properties(SystemC::systemc PROPERTIES IMPORTED_LOCATION "${DEBIAN_SYSTEMC_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${DEBIAN_SYSTEMC_INCLUDE}")
endif()
set(SystemCLanguage_FOUND TRUE)
EOF
    echo 'set(PACKAGE_VERSION 2.3.4)
set(PACKAGE_VERSION_COMPATIBLE TRUE)' > "$WORK/shims/systemc/SystemCLanguageConfigVersion.cmake"
    echo '#include "/usr/include/sqlite3.h"' > "$WORK/shims/sqlite3/sqlite3.h"
    echo '#include "/usr/include/sqlite3ext.h"' > "$WORK/shims/sqlite3/sqlite3ext.h"
    echo '/* the code is Debian libsqlite3, linked through CMAKE_*_STANDARD_LIBRARIES */' \
      > "$WORK/shims/sqlite3/sqlite3.c"
    build=$WORK/dramsys-build
    cmake -S "$DRAMSYS" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$WORK/shims/systemc" \
      -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
      -DFETCHCONTENT_SOURCE_DIR_SQLITE3="$WORK/shims/sqlite3" \
      -DCMAKE_CXX_STANDARD_LIBRARIES=-lsqlite3 -DCMAKE_C_STANDARD_LIBRARIES=-lsqlite3 \
      -DDRAMSYS_BUILD_CLI=ON -DDRAMSYS_WITH_DRAMPOWER=OFF >&2
    cmake --build "$build" --target DRAMSys -j "$JOBS" >&2
    version="v5.0 $(git -C "$DRAMSYS" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
    res=$WORK/dramsys-resources
    mkdir -p "$res/memspec" "$res/mcconfig" "$res/simconfig" "$res/addressmapping"
    cp "$HERE/dramsys/memspec_ascendsim_hbm2.json" "$res/memspec/"
    cp "$HERE/dramsys/mcconfig_ascendsim.json" "$res/mcconfig/"
    cp "$HERE/dramsys/simconfig_ascendsim.json" "$res/simconfig/"
    cp "$HERE/dramsys/addressmapping_ascendsim_bgi.json" "$res/addressmapping/"
    ln -sfn "$WORK/traces" "$res/traces"
    for p in $PATTERNS; do
      sed "s/@PATTERN@/$p/g" "$HERE/dramsys/simulation.json.in" > "$res/$p.json"
      out=$("$build/bin/DRAMSys" "$res/$p.json" "$res")
      # Each channel controller prints its bandwidth over the whole simulated time, which ends
      # with the last response: their sum is all bytes over that time.
      echo "$out" | awk -v sim=dramsys -v ver="$version" -v p="$p" -v n="$REQUESTS" '
        /Total Time:/ { t = $(NF - 1); u = $NF }
        /AVG BW: / { for (i = 1; i < NF; i++) if ($(i + 1) == "GB/s") gb += $i }
        END {
          scale = u == "ms" ? 1e-3 : u == "us" ? 1e-6 : u == "ns" ? 1e-9 : u == "ps" ? 1e-12 : 1
          if (gb == 0) { print "run.sh: no bandwidth from DRAMSys" > "/dev/stderr"; exit 1 }
          printf "%s,%s,%s,%d,%d,%.9f,%.2f\n", sim, ver, p, n, n * 64, t * scale, gb }'
    done
    ;;
  *)
    say "unknown simulator '$simulator' (ramulator2, dramsys)"
    exit 2
    ;;
  esac
done
