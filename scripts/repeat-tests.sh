#!/usr/bin/env bash
# Runs every registered test (each doctest suite is its own CTest entry, so its own process)
# N times and counts the failures of each: a crash at exit, a hang or a test that fails one run
# in ten shows here, where a single `ctest` run may pass.
#
#   scripts/repeat-tests.sh N [BUILD_DIR] [-- CTEST_SELECTION...]
#   e.g. scripts/repeat-tests.sh 50 build -- -L unit
#        scripts/repeat-tests.sh 20 build -- -R '^unit\.pic$'
#
# Prints one line per test (runs, failures, the slowest run) and, for every failure, the run's
# number and the last lines of its output (the whole output goes to BUILD_DIR/repeat-tests/).
# Exit status: 0 when nothing failed, 1 otherwise, 2 on bad usage.
set -u

usage() {
  echo "usage: $0 N [BUILD_DIR] [-- CTEST_SELECTION...]" >&2
  exit 2
}
[ $# -ge 1 ] || usage
runs=$1
shift
case "$runs" in '' | *[!0-9]* | 0) echo "$0: N must be a positive whole number, not '$runs'" >&2; usage ;; esac
build=build
if [ $# -ge 1 ] && [ "$1" != -- ]; then
  build=$1
  shift
fi
selection=()
if [ $# -ge 1 ]; then
  [ "$1" = -- ] || usage
  shift
  selection=("$@")
fi
if [ ! -f "$build/CTestTestfile.cmake" ]; then
  echo "$0: '$build' is not a configured build directory (cmake -S . -B $build first)" >&2
  exit 2
fi

mapfile -t tests < <(ctest --test-dir "$build" -N "${selection[@]}" |
  sed -n 's/^ *Test *#[0-9]*: \(.*\)$/\1/p')
if [ ${#tests[@]} -eq 0 ]; then
  echo "$0: no test matches: ${selection[*]:-(all)}" >&2
  exit 2
fi

logs="$build/repeat-tests"
mkdir -p "$logs"
rm -f "$logs/failures.txt"
total_failed=0
printf '%-34s %5s %8s %10s\n' test runs failures slowest_s
for name in "${tests[@]}"; do
  failed=0
  slowest=0
  pattern="^$(printf '%s' "$name" | sed 's/[.[\*^$()+?{|]/\\&/g')\$"
  for ((run = 1; run <= runs; run++)); do
    log="$logs/$name.$run.log"
    start=$(date +%s.%N)
    if ctest --test-dir "$build" -R "$pattern" --output-on-failure >"$log" 2>&1 &&
      grep -q '100% tests passed' "$log"; then
      rm -f "$log"
    else
      failed=$((failed + 1))
      {
        echo "--- $name, run $run of $runs failed ($log):"
        grep -v '^ *$' "$log" | tail -n 15
      } >>"$logs/failures.txt"
    fi
    slowest=$(awk -v a="$slowest" -v b="$(date +%s.%N)" -v s="$start" 'BEGIN { d = b - s; print (d > a ? d : a) }')
  done
  total_failed=$((total_failed + failed))
  printf '%-34s %5d %8d %10.1f\n' "$name" "$runs" "$failed" "$slowest"
done
if [ "$total_failed" -ne 0 ]; then
  echo
  cat "$logs/failures.txt"
  echo "$0: $total_failed failed runs"
  exit 1
fi
echo "$0: no failures in $runs runs of each of ${#tests[@]} tests"
