#!/usr/bin/env bash
# Runs every built-in scenario, cut short, with two partcl tools and compares what they did:
# the printed text (rates, ETAs and wall times masked, as they follow the machine's load), every
# output file byte for byte, except HDF5 snapshots, compared by h5diff (libhdf5 stamps objects
# with their creation time), and a resumed run per model. Used to show that a change of the
# code's structure left the behaviour alone.
#
#   scripts/compare-builtins.sh BEFORE/partcl AFTER/partcl
#
# Prints one line per run (same / DIFFERENT) and the differences. Exit status: 0 when every run
# matched, 1 otherwise, 2 on bad usage.
set -u
before=${1:-}
after=${2:-}
if [ -z "$before" ] || [ -z "$after" ] || [ ! -x "$before" ] || [ ! -x "$after" ]; then
  echo "usage: $0 BEFORE/partcl AFTER/partcl (two built partcl tools)" >&2
  exit 2
fi
command -v h5diff >/dev/null || { echo "$0: h5diff not found (apt-get install hdf5-tools)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/partcl-compare.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM

# Numbers that follow the machine, not the run: rates, ETAs, wall times, the output directory.
mask() {
  sed -E -e 's#'"$work"'/(before|after)#OUT#g' \
    -e 's/[0-9.e+-]+ (steps\/s|particle-steps\/s|interactions\/s)/RATE \1/g' \
    -e 's/ETA [0-9:]+/ETA T/g' -e 's/wall [0-9.]+ s/wall T s/g' "$1"
}

run_both() {  # name, then the arguments of partcl run
  local name=$1 side tool
  shift
  for side in before after; do
    tool=$before
    [ "$side" = after ] && tool=$after
    "$tool" "$@" --out "$work/$side/$name" >"$work/$side.$name.log" 2>&1
    echo "exit $?" >>"$work/$side.$name.log"
  done
}

compare() {  # name
  local name=$1 same=1 file rel
  if ! diff <(mask "$work/before.$name.log") <(mask "$work/after.$name.log") >"$work/diff"; then
    same=0
    { echo "--- $name: printed text differs"; cat "$work/diff"; } >>"$work/report"
  fi
  if ! diff <(cd "$work/before/$name" && find . -type f | sort) \
            <(cd "$work/after/$name" && find . -type f | sort) >"$work/diff"; then
    same=0
    { echo "--- $name: different files written"; cat "$work/diff"; } >>"$work/report"
  fi
  while IFS= read -r file; do
    rel=${file#"$work/before/$name/"}
    [ -f "$work/after/$name/$rel" ] || continue
    case "$rel" in
      *.h5) h5diff "$file" "$work/after/$name/$rel" >"$work/diff" 2>&1 ;;
      *) cmp "$file" "$work/after/$name/$rel" >"$work/diff" 2>&1 ;;
    esac || { same=0; { echo "--- $name: $rel differs"; head -n 20 "$work/diff"; } >>"$work/report"; }
  done < <(find "$work/before/$name" -type f | sort)
  if [ "$same" -eq 1 ]; then printf '%-22s same\n' "$name"; else printf '%-22s DIFFERENT\n' "$name"; fi
  return $((1 - same))
}

status=0
for scenario in galaxies plummer kepler cube dambreak dambreak3d hydrostatic langmuir two-stream pair-plasma; do
  case "$scenario" in
    dambreak | dambreak3d | hydrostatic) length=(--end-time 0.002) ;;
    langmuir | two-stream | pair-plasma) length=(--end-time 1) ;;
    *) length=(--steps 5) ;;
  esac
  run_both "$scenario" run "$scenario" "${length[@]}"
  compare "$scenario" || status=1
done

# A resumed run per model: the first part with one tool, both tools take it to the end.
for resumed in "kepler --steps 4 --steps 8" "dambreak --end-time 0.001 --end-time 0.002" \
               "langmuir --end-time 0.5 --end-time 1"; do
  read -r scenario flag first _ second <<<"$resumed"
  "$before" run "$scenario" "$flag" "$first" --out "$work/start" >/dev/null 2>&1
  for side in before after; do mkdir -p "$work/$side"; cp -r "$work/start" "$work/$side/$scenario-resumed"; done
  run_both "$scenario-resumed" run --resume "$work/start/checkpoint.bin" "$flag" "$second"
  compare "$scenario-resumed" || status=1
done

[ -f "$work/report" ] && cat "$work/report"
exit $status
