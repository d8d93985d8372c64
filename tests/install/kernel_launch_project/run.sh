#!/bin/bash
# Builds the kernel-launch project against the CANN toolkit it finds (ASCEND_INSTALL_PATH,
# ASCEND_HOME_PATH, or the default install places), installs it into out/ and runs it.
#   bash run.sh -v <soc> [-r cpu|sim|npu] [-b Debug|Release] [-i <toolkit>] [-p <install prefix>]
set -o pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)
cd "$HERE" || exit 1

SOCS="Ascend910A Ascend910B1 Ascend910B2 Ascend910B3 Ascend910B4 Ascend310P1 Ascend310P3"
RUN_MODE=npu
BUILD_TYPE=Debug
INSTALL_PREFIX="$HERE/out"
OPTIONS=$(getopt -a -o r:v:i:b:p: -l run-mode:,soc-version:,install-path:,build-type:,install-prefix: -- "$@") || exit 1
eval set -- "$OPTIONS"
while true; do
  case "$1" in
    -r | --run-mode) RUN_MODE="$2"; shift 2 ;;
    -v | --soc-version) SOC_VERSION="$2"; shift 2 ;;
    -i | --install-path) ASCEND_INSTALL_PATH="$2"; shift 2 ;;
    -b | --build-type) BUILD_TYPE="$2"; shift 2 ;;
    -p | --install-prefix) INSTALL_PREFIX="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "[ERROR] unknown option $1"; exit 1 ;;
  esac
done

if [ -n "$ASCEND_INSTALL_PATH" ]; then
  TOOLKIT="$ASCEND_INSTALL_PATH"
elif [ -n "$ASCEND_HOME_PATH" ]; then
  TOOLKIT="$ASCEND_HOME_PATH"
elif [ -d "$HOME/Ascend/ascend-toolkit/latest" ]; then
  TOOLKIT="$HOME/Ascend/ascend-toolkit/latest"
else
  TOOLKIT=/usr/local/Ascend/ascend-toolkit/latest
fi
# shellcheck source=/dev/null
source "$TOOLKIT/bin/setenv.bash"

if [[ " $SOCS " != *" $SOC_VERSION "* ]]; then
  echo "[ERROR] -v takes one of: $SOCS"
  exit 1
fi
if [[ " cpu sim npu " != *" $RUN_MODE "* ]]; then
  echo "[ERROR] -r takes cpu, sim or npu"
  exit 1
fi

set -e
rm -rf build out output
mkdir -p build output
cmake -B build -DRUN_MODE="$RUN_MODE" -DSOC_VERSION="$SOC_VERSION" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
  -DCMAKE_INSTALL_PREFIX="$INSTALL_PREFIX" -DASCEND_CANN_PACKAGE_PATH="$TOOLKIT"
cmake --build build -j 2
cmake --install build
export LD_LIBRARY_PATH="$INSTALL_PREFIX/lib:$INSTALL_PREFIX/lib64:$LD_LIBRARY_PATH"
"$INSTALL_PREFIX/bin/ascendc_kernels_bbit"
md5sum output/*.bin
