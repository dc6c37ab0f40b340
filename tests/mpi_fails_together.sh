#!/bin/sh
# A rank that fails must end every rank, with its message, never a hang:
#   mpi_fails_together.sh MPIEXEC PARTCL_TESTS [mpiexec flags...]
# runs two suites on two ranks, each passing when mpiexec exits non-zero with rank 1's message
# (CTest's timeout catches a hang): mpi_failure, where rank 1 calls Environment::fail while rank 0
# waits in a barrier, and mpi_test_failure, where rank 1's test case fails and the test runner
# must end both ranks.
mpiexec=$1
tests=$2
shift 2
expect_failure() {
  suite=$1
  message=$2
  shift 2
  output=$("$mpiexec" "$@" -np 2 "$tests" -ts="$suite" --no-skip 2>&1)
  status=$?
  printf '%s\n' "$output"
  if [ "$status" -eq 0 ]; then
    echo "mpi_fails_together.sh: mpiexec exited 0 although rank 1 failed ($suite)" >&2
    exit 1
  fi
  case $output in
    *"$message"*) return 0 ;;
  esac
  echo "mpi_fails_together.sh: rank 1's message is missing from the output ($suite)" >&2
  exit 1
}
expect_failure mpi_failure "rank 1 of 2: a deliberate failure" "$@"
expect_failure mpi_test_failure 'rank 1 of 2: test case "a rank whose test case fails ends every rank" failed' "$@"
