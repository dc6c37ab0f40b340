#!/bin/sh
# `partcl run` of PIC plasmas over MPI ranks gives one rank's run within rounding:
#   mpi_pic_run.sh MPIEXEC PARTCL [mpiexec flags...]
# For the 1-D langmuir and two-stream set-ups and the 2-D pair plasma, in double, the runs on 2
# and 3 ranks must write diagnostics.csv with the one-rank run's times and, in every other
# column, values within 1e-9 of the column's largest magnitude (the distributed Poisson solve and
# the slab coordinates round differently), and as many frames; a run checkpointed on 3 ranks and
# resumed on 2 must end as the uninterrupted one-rank run within the same bound. A column whose
# values are all below 1e-6 of the file's largest (a momentum conserved to rounding, the cosine
# part of a sine mode) is rounding noise on either side: its values must differ by less than
# 1e-9 of the file's largest. Byte-for-byte equality is not asked: the sums are not in one order.
set -eu
mpiexec=$1
partcl=$2
shift 2
MPI_FLAGS="$*"
work=$(mktemp -d "${TMPDIR:-/tmp}/partcl-mpi-pic-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0

. "$(dirname "$0")/mpi_run_ranks.sh"

close() {  # close A.csv B.csv: same rows and times, other columns within 1e-9 of their scale
  awk -F, -v tol=1e-9 '
    NR == FNR { if (FNR > 1) for (c = 2; c <= NF; ++c) { a[FNR, c] = $c; v = $c < 0 ? -$c : $c
                  if (v > s[c]) s[c] = v; if (v > all) all = v }
                if (FNR > 1) a[FNR, 1] = $1; rows = FNR; next }
    FNR == 1 { next }
    { if (!((FNR, 1) in a)) { print "extra row " FNR; bad = 1; next }
      if ($1 != a[FNR, 1]) { print "row " FNR ": time " $1 " against " a[FNR, 1]; bad = 1 }
      for (c = 2; c <= NF; ++c) { d = $c - a[FNR, c]; if (d < 0) d = -d
        scale = s[c] < 1e-6 * all ? all : s[c]
        if (d > tol * scale) { print "row " FNR ", column " c ": " $c " against " a[FNR, c]; bad = 1 } }
      seen = FNR }
    END { if (seen != rows) { print "rows: " seen " against " rows; bad = 1 } exit bad }' "$1" "$2"
}

frames() { ls "$1" | grep -c '^frame_' || true; }

for case in \
  "langmuir langmuir --steps 60" \
  "two_stream two-stream --steps 60" \
  "pair pair-plasma --steps 12"; do
  set -f
  set -- $case
  set +f
  name=$1
  shift
  run_ranks 1 "$work/$name.1" "$@" --precision double
  for k in 2 3; do
    run_ranks "$k" "$work/$name.$k" "$@" --precision double
    close "$work/$name.1/diagnostics.csv" "$work/$name.$k/diagnostics.csv" ||
      { echo "$name: diagnostics.csv of $k ranks differs"; failed=1; }
    [ "$(frames "$work/$name.1")" = "$(frames "$work/$name.$k")" ] ||
      { echo "$name: frames of $k ranks"; failed=1; }
  done
  echo "$name: 1, 2 and 3 ranks compared"
done

# Checkpointed at step 30 on 3 ranks, resumed to step 60 on 2.
run_ranks 3 "$work/resumed" langmuir --steps 30 --precision double
run_ranks 2 "$work/resumed" --resume "$work/resumed/checkpoint.bin" --steps 60
close "$work/langmuir.1/diagnostics.csv" "$work/resumed/diagnostics.csv" ||
  { echo "differs after the resume"; failed=1; }
echo "resume: 3 ranks, then 2, compared"
exit "$failed"
