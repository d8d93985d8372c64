#!/usr/bin/env bash
# Builds and runs one of the open-source CANN runtime's samples (github:hicann/runtime, example/)
# unchanged against an AscendSim install, as the sample's README says: source the prefix's
# set_env.sh and example/set_sample_env.sh, then `bash run.sh` in the sample's folder. Exits with
# run.sh's code; its output is printed as it comes.
#
#   scripts/run-cann-sample.sh PREFIX EXAMPLE_DIR [--shared] SAMPLE [RUN_SH_ARGS...]
#     PREFIX       an AscendSim install (cmake --install build/release --prefix PREFIX)
#     EXAMPLE_DIR  the example/ folder of a hicann/runtime checkout (it is built in place)
#     SAMPLE       a sample's folder under it, e.g. 2_advanced_features/tdt_queue/0_simple_queue
#
# A sample whose run.sh starts its processes in the background (the multi-process ones) runs under
# `ascendsim exec --shared` (one machine for all its processes, docs/multiprocess.md): on the
# default machine, or on an Atlas 800T A2 (8 NPUs) for the samples that use more than device 0
# (ipcevent/1_ipcevent_multi_device, notify/*). The others run directly, on the default machine,
# or with --shared under `ascendsim exec --shared` too (a served program, as under mpirun).
#
# `scripts/run-cann-sample.sh PREFIX EXAMPLE_DIR [--shared] --all` runs every run.sh of 0_quickstart,
# 1_basic_features, 2_advanced_features and 3_memory_advanced (at most 5 minutes each) and prints
# one line per sample.
set -u
if [[ $# -lt 3 ]]; then
  sed -n 2,23p "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
prefix="$(cd "$1" && pwd)" || exit 2
examples="$(cd "$2" && pwd)" || exit 2
shift 2
shared=0
if [[ "$1" == "--shared" ]]; then
  shared=1
  shift
fi
export prefix examples shared

run_one() {
  local sample="$1"
  shift
  (
    set +u
    # shellcheck source=/dev/null
    source "${prefix}/set_env.sh" >/dev/null || exit 90
    # shellcheck source=/dev/null
    source "${examples}/set_sample_env.sh" >/dev/null || exit 91
    cd "${examples}/${sample}" || exit 92
    if [[ "${shared}" == 1 ]] || grep -qE '&[[:space:]]*$' run.sh; then
      local machine=()
      case "${sample}" in
        */ipcevent/1_ipcevent_multi_device | */notify/*) machine=(--config atlas-800t-a2) ;;
      esac
      "${prefix}/bin/ascendsim" exec --shared "${machine[@]}" -- bash run.sh "$@"
    else
      bash run.sh "$@"
    fi
  )
}

if [[ "$1" == "--all" ]]; then
  failed=0
  while IFS= read -r runsh; do
    sample="${runsh#"${examples}"/}"
    sample="${sample%/run.sh}"
    log="$(mktemp)"
    # (A sample waiting for a second process it never gets would wait for ever: 5 minutes each.)
    if timeout --kill-after=10 300 bash -c "$(declare -f run_one); run_one ${sample}" \
      >"${log}" 2>&1; then
      echo "pass  ${sample}"
    else
      echo "FAIL  ${sample} (exit $?; last lines below)"
      tail -n 5 "${log}" | awk '{ print "      " $0 }'
      failed=$((failed + 1))
    fi
    rm -f "${log}"
  done < <(find "${examples}"/0_quickstart "${examples}"/1_basic_features \
    "${examples}"/2_advanced_features "${examples}"/3_memory_advanced -name run.sh | sort)
  exit $((failed > 0))
fi
run_one "$@"
