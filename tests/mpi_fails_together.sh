#!/bin/sh
# A rank that fails must end every rank, with its message, never a hang:
#   mpi_fails_together.sh MPIEXEC PARTCL_TESTS [mpiexec flags...]
# runs suite mpi_failure on two ranks, where rank 1 fails while rank 0 waits in a barrier, and
# passes when mpiexec exits non-zero with rank 1's message (CTest's timeout catches a hang).
mpiexec=$1
tests=$2
shift 2
output=$("$mpiexec" "$@" -np 2 "$tests" -ts=mpi_failure --no-skip 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -eq 0 ]; then
  echo "mpi_fails_together.sh: mpiexec exited 0 although rank 1 failed" >&2
  exit 1
fi
case $output in
  *"rank 1 of 2: a deliberate failure"*) exit 0 ;;
esac
echo "mpi_fails_together.sh: rank 1's message is missing from the output" >&2
exit 1
