#!/bin/sh
# `partcl run` over MPI ranks writes what one rank writes:
#   mpi_run.sh MPIEXEC PARTCL [mpiexec flags...]
# For fixed-step (leapfrog), adaptive (dopri5 to an end time), multistep (adams4) and implicit
# (rkgl6) N-body runs with dense gravity, leapfrog and dopri5 with tree gravity (theta 0.5
# and 0; leapfrog also with the tree refitted between builds and the relative criterion, and
# over locally essential trees rather than the gather), and
# the 2-D and 3-D MPS dam breaks, the run on 2 and 3 ranks must leave its CSV, checkpoint.bin
# and every frame byte for byte as the one-rank run, and every snapshot's contents (h5diff: the
# files' bytes differ in HDF5's own object headers; on K ranks a snapshot joins the K pieces its
# ranks wrote, which must all be there); and a run checkpointed on 3 ranks and resumed on 2 (tree: 2, then 3; the refitted tree and MPS: 3, then 2) must end as the
# uninterrupted one-rank run.
# devices.csv differs by design (each rank's devices and times); on K ranks it holds the rows of
# ranks 0 to K-1.
set -eu
mpiexec=$1
partcl=$2
shift 2
work=$(mktemp -d "${TMPDIR:-/tmp}/partcl-mpi-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0

same() {  # same DIR_A DIR_B: every file but devices.csv alike
  for file in "$1"/*; do
    base=$(basename "$file")
    case $base in
      devices.csv) continue ;;
      *.h5) h5diff -q "$file" "$2/$base" >/dev/null 2>&1 || { echo "differs: $2/$base"; failed=1; } ;;
      *) cmp -s "$file" "$2/$base" || { echo "differs: $2/$base"; failed=1; } ;;
    esac
  done
}

pieces() {  # pieces DIR_1 DIR_K K: each snapshot of a K-rank run has its K pieces, no more
  for file in "$1"/snapshot_*.h5; do
    [ -e "$file" ] || continue
    stem=$(basename "$file" .h5)
    r=0
    while [ "$r" -lt "$3" ]; do
      [ -f "$2/$stem.$r.h5" ] || { echo "missing: $2/$stem.$r.h5"; failed=1; }
      r=$((r + 1))
    done
    [ ! -e "$2/$stem.$3.h5" ] || { echo "a piece too many: $2/$stem.$3.h5"; failed=1; }
  done
}

. "$(dirname "$0")/mpi_run_ranks.sh"

MPI_FLAGS="$*"
# A tree refitted between builds and opened by the relative criterion, sampled on steps that are
# not the checkpoints' (a sample must leave the tree as the steps left it).
cat >"$work/tree_refit.toml" <<EOF
[scenario]
name = "tree_refit"
[bodies]
initial = "galaxies"
n = 900
seed = 42
[gravity]
model = "tree"
softening = 0.04
theta = 0.6
rebuild_every = 8
rebuild_growth = 0.02
relative_accuracy = 0.003
[run]
steps = 20
diagnostics_every = 3
checkpoint_every = 7
EOF
# The tree over ranks by locally essential trees rather than the gather.
cat >"$work/tree_essential.toml" <<EOF
[scenario]
name = "tree_essential"
[bodies]
initial = "galaxies"
n = 900
seed = 7
[gravity]
model = "tree"
softening = 0.04
theta = 0.6
ranks = "essential"
[run]
steps = 12
snapshot_every = 6
EOF
for case in \
  "leapfrog galaxies --n 700 --steps 12 --frame-every 6 --snapshot-every 6" \
  "dopri5 plummer --n 300 --integrator dopri5 --end-time 0.05" \
  "adams4 galaxies --n 500 --integrator adams4 --steps 20" \
  "rkgl6 plummer --n 200 --integrator rkgl6 --steps 4" \
  "tree galaxies --n 900 --gravity tree --steps 20 --snapshot-every 10" \
  "tree_dopri5 plummer --n 400 --gravity tree --theta 0 --integrator dopri5 --end-time 0.05" \
  "tree_refit $work/tree_refit.toml" \
  "tree_essential $work/tree_essential.toml" \
  "dambreak dambreak --steps 800" \
  "dambreak3d dambreak3d --steps 100"; do
  set -f
  set -- $case
  set +f
  name=$1
  shift
  run_ranks 1 "$work/$name.1" "$@"
  for k in 2 3; do
    run_ranks "$k" "$work/$name.$k" "$@"
    same "$work/$name.1" "$work/$name.$k"
    pieces "$work/$name.1" "$work/$name.$k" "$k"
    ranks=$(tail -n +2 "$work/$name.$k/devices.csv" | cut -d, -f1 | sort -un | tr '\n' ' ')
    [ "$ranks" = "$(seq -s ' ' 0 $((k - 1))) " ] || { echo "$name: devices.csv of $k ranks has the rows of ranks $ranks"; failed=1; }
  done
  echo "$name: 1, 2 and 3 ranks compared"
done

# Checkpointed at step 10 on 3 ranks, resumed to step 20 on 2.
run_ranks 3 "$work/resumed" galaxies --n 500 --integrator adams4 --steps 10
run_ranks 2 "$work/resumed" --resume "$work/resumed/checkpoint.bin" --steps 20
for file in energy.csv checkpoint.bin; do
  cmp -s "$work/adams4.1/$file" "$work/resumed/$file" || { echo "differs after the resume: $file"; failed=1; }
done
echo "resume: 3 ranks, then 2, compared"
# Tree gravity: checkpointed at step 10 on 2 ranks, resumed to step 20 on 3.
run_ranks 2 "$work/tree_resumed" galaxies --n 900 --gravity tree --steps 10 --snapshot-every 10
run_ranks 3 "$work/tree_resumed" --resume "$work/tree_resumed/checkpoint.bin" --steps 20
for file in energy.csv checkpoint.bin; do
  cmp -s "$work/tree.1/$file" "$work/tree_resumed/$file" || { echo "differs after the tree resume: $file"; failed=1; }
done
h5diff -q "$work/tree.1/snapshot_000020.h5" "$work/tree_resumed/snapshot_000020.h5" >/dev/null 2>&1 ||
  { echo "differs after the tree resume: snapshot_000020.h5"; failed=1; }
echo "tree resume: 2 ranks, then 3, compared"
# The refitted tree: checkpointed at step 9 on 3 ranks (a sampled step: a run that stops
# between samples writes a row of its own there), resumed to step 20 on 2.
run_ranks 3 "$work/tree_refit_resumed" "$work/tree_refit.toml" --steps 9
run_ranks 2 "$work/tree_refit_resumed" --resume "$work/tree_refit_resumed/checkpoint.bin" --steps 20
for file in energy.csv checkpoint.bin; do
  cmp -s "$work/tree_refit.1/$file" "$work/tree_refit_resumed/$file" || { echo "differs after the refitted tree's resume: $file"; failed=1; }
done
echo "refitted tree resume: 3 ranks, then 2, compared"
# MPS: checkpointed at step 400 on 3 ranks, resumed to step 800 on 2, against the same on one
# rank (front.csv keeps the row the first run wrote at its end, so not the uninterrupted run's).
run_ranks 1 "$work/mps_resumed.1" dambreak --steps 400
run_ranks 1 "$work/mps_resumed.1" --resume "$work/mps_resumed.1/checkpoint.bin" --steps 800
run_ranks 3 "$work/mps_resumed" dambreak --steps 400
run_ranks 2 "$work/mps_resumed" --resume "$work/mps_resumed/checkpoint.bin" --steps 800
for file in front.csv checkpoint.bin; do
  cmp -s "$work/mps_resumed.1/$file" "$work/mps_resumed/$file" || { echo "differs after the MPS resume: $file"; failed=1; }
done
echo "MPS resume: 3 ranks, then 2, compared"
exit "$failed"
