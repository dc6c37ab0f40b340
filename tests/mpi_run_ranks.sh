# Sourced by the scripts that compare `partcl run` over MPI ranks (mpi_run.sh, mpi_pic_run.sh),
# which set $partcl, $mpiexec and $MPI_FLAGS first.
run_ranks() {  # run_ranks K OUT ARGS...: one rank without the launcher
  k=$1
  out=$2
  shift 2
  if [ "$k" -eq 1 ]; then
    "$partcl" run "$@" --out "$out" --quiet
  else
    "$mpiexec" $MPI_FLAGS -np "$k" "$partcl" run "$@" --out "$out" --quiet
  fi
}
