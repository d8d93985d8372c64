#!/usr/bin/env bash
# Installs AscendSim's build and test dependencies from Debian 12 packages.
# Idempotent: does nothing (not even apt-get update) when every package is present.
# Runs as root, or through sudo when it is available.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache git
  libsystemc-dev libyaml-cpp-dev libboost-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libcli11-dev libsqlite3-dev sqlite3 protobuf-compiler
  python3-dev pybind11-dev python3-numpy
)
# sqlite3 (the shell) and protobuf-compiler (protoc) are for the trace-format tests: SQL queries
# of a SQLite trace, and decoding a Perfetto trace against the project's schema.
# Extra groups for later stages are opt-in so the two README commands stay fast:
# --with-browser (Chromium, for the trace viewer's test), --with-fuzz (clang and libFuzzer),
# --with-format (clang-format, for scripts/check-format.sh),
# --with-slurm (Slurm's controller, node daemon and client with munge, for the test that runs a
# one-node cluster; the packages' services are not started: the test starts its own),
# --with-mpi (Open MPI, for the tests that run mpirun jobs on one shared machine).
for option in "$@"; do
  case "$option" in
    --with-browser) packages+=(chromium) ;;
    --with-fuzz) packages+=(clang libclang-rt-14-dev) ;;
    --with-format) packages+=(clang-format) ;;
    --with-slurm) packages+=(slurmctld slurmd slurm-client munge) ;;
    --with-mpi) packages+=(openmpi-bin libopenmpi-dev) ;;
    *) echo "install-deps: unknown option '$option' (--with-browser, --with-fuzz, --with-format, --with-slurm, --with-mpi)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

as_root=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  as_root=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
