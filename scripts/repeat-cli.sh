#!/usr/bin/env bash
# Runs every built-in scenario N times through the partcl tool, each cut short (N-body: 5 steps;
# MPS fluid and PIC plasma: a short --end-time), and counts the runs that did not exit 0: a
# crash at exit or a flaky failure of the command line shows here.
#
#   scripts/repeat-cli.sh N [PATH/TO/partcl]      (default build/tools/partcl)
#
# Prints one line per scenario (runs, failures) and, for each failure, its exit status and the
# last lines it printed. Exit status: 0 when every run exited 0, 1 otherwise, 2 on bad usage.
set -u
runs=${1:-}
partcl=${2:-build/tools/partcl}
case "$runs" in '' | *[!0-9]* | 0) echo "usage: $0 N [PATH/TO/partcl]" >&2; exit 2 ;; esac
[ -x "$partcl" ] || { echo "$0: no partcl tool at $partcl (build it first)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/partcl-repeat-cli.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
total_failed=0
printf '%-12s %5s %8s\n' scenario runs failures
for scenario in galaxies plummer kepler cube dambreak dambreak3d hydrostatic langmuir two-stream pair-plasma; do
  case "$scenario" in
    dambreak | dambreak3d | hydrostatic) length=(--end-time 0.002) ;;
    langmuir | two-stream | pair-plasma) length=(--end-time 1) ;;
    *) length=(--steps 5) ;;
  esac
  failed=0
  for ((run = 1; run <= runs; run++)); do
    if ! "$partcl" run "$scenario" "${length[@]}" --out "$work/out" --quiet >"$work/log" 2>&1; then
      status=$?
      failed=$((failed + 1))
      { echo "--- $scenario, run $run: exit status $status"; tail -n 5 "$work/log"; } >>"$work/failures"
    fi
    rm -rf "$work/out"
  done
  total_failed=$((total_failed + failed))
  printf '%-12s %5d %8d\n' "$scenario" "$runs" "$failed"
done
if [ "$total_failed" -ne 0 ]; then
  cat "$work/failures"
  echo "$0: $total_failed failed runs"
  exit 1
fi
echo "$0: every run of every built-in scenario exited 0 ($runs each)"
