#!/usr/bin/env bash
# Runs the MPS validation cases of a cases file side by side, on the GPU machine (device tool)
# under CUDA's Multi-Process Service, or here: docs/mps.md's tables of still water and sloshing.
#
#   device run (carry [".deps/debs"]):
#     GPU_CHECK_PARTS=none GPU_CHECK_TARGETS=partcl_bench_mps_validation bash scripts/gpu-check.sh &&
#     bash scripts/mps-validation-cases.sh docs/data/mps_validation/CASES.txt [common arguments]
#   here: MPS_CASES_BENCH=build/benchmarks/partcl_bench_mps_validation MPS_CASES_JOBS=2 bash ...
#
# Each line of the cases file is a name and the arguments of one run of
# partcl_bench_mps_validation; the common arguments follow every line's. Results under $OUT:
# cases.jsonl (each case's JSON line with "name" and "max_speed_within_each_second", the largest
# speed within each simulated second over all of its 5 ms samples, in m/s), progress.txt, and
# samples.csv (every case's samples, its name first). MPS_CASES_TIMEOUT (default 560 s) stops a
# case that would outlast the device call: its line says "unfinished", its progress is kept.
set -uo pipefail
cd "$(dirname "$0")/.."
cases=$1; shift
OUT=${OUT:-/tmp/partcl-mps-cases}
mkdir -p "$OUT"
bench=${MPS_CASES_BENCH:-build-gpu/benchmarks/partcl_bench_mps_validation}
jobs=${MPS_CASES_JOBS:-16}
work=$(mktemp -d)
if [ -z "${MPS_CASES_BENCH:-}" ]; then
    export PARTCL_BACKEND=cuda PARTCL_DEVICE=gpu
    export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
    mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
    nvidia-cuda-mps-control -d
fi

run_case() {
    local name=$1; shift
    timeout "${MPS_CASES_TIMEOUT:-560}" "$bench" "$@" --csv "$work/$name.csv" >"$work/$name.json" \
        2> >(sed -u "s/^/$name: /" >>"$OUT/progress.txt")
    echo "$name: exit $?" >>"$OUT/progress.txt"
}

while read -r name args; do
    [ -z "$name" ] || [[ $name == \#* ]] && continue
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
    # shellcheck disable=SC2086
    run_case "$name" $args "$@" &
done <"$cases"
wait
[ -z "${MPS_CASES_BENCH:-}" ] && echo quit | nvidia-cuda-mps-control

: >"$OUT/cases.jsonl"
echo "name,t,x_cm,y_cm,max_speed,bottom_pressure,fastest_x,fastest_y,fastest_z,fastest_ux,fastest_uy,fastest_uz,fastest_pressure" >"$OUT/samples.csv"
while read -r name args; do
    [ -z "$name" ] || [[ $name == \#* ]] && continue
    csv=$work/$name.csv
    [ -s "$csv" ] && tail -n +2 "$csv" | sed "s/^/$name,/" >>"$OUT/samples.csv"
    seconds=$( [ -s "$csv" ] && awk -F, 'NR > 1 { s = int($1 - 1e-9); if ($4 > m[s]) m[s] = $4; if (s > n) n = s }
        END { for (i = 0; i <= n; ++i) printf "%s%.4g", (i ? "," : ""), m[i] }' "$csv")
    line=$(cat "$work/$name.json" 2>/dev/null)
    [ -z "$line" ] && line='{"unfinished":true}'
    echo "${line%\}},\"name\":\"$name\",\"max_speed_within_each_second\":[${seconds}]}" >>"$OUT/cases.jsonl"
done <"$cases"
rm -rf "$work"
cat "$OUT/cases.jsonl"
