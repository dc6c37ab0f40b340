#!/bin/sh
# Snapshots read by the tools astrophysicists use: yt and pynbody, from PyPI, in a virtual
# environment of their own (made on the first run, kept in VENV after; the versions are
# pinned so a new release cannot turn this test red). Runs a short `galaxies` and checks its
# snapshot with check_snapshot.py, which also draws yt's projection into the work directory;
# with MPIEXEC (partcl built with MPI), the same run on 2 ranks too, whose snapshot joins the
# ranks' pieces in HDF5 virtual datasets.
#
#   tests/readers/run.sh PATH/TO/partcl VENV [MPIEXEC mpiexec flags...]
set -eu
partcl=$1
venv=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import yt, pynbody, h5py' 2>/dev/null; then
    echo "making $venv with yt 4.4.3 and pynbody 2.8.0 (from PyPI)"
    rm -rf "$venv"
    python3 -m venv "$venv" || { echo "readers: python3 -m venv failed (Debian: apt-get install python3-venv)"; exit 1; }
    "$venv/bin/pip" install --quiet --disable-pip-version-check yt==4.4.3 pynbody==2.8.0 h5py ||
        { rm -rf "$venv"; echo "readers: pip could not install yt and pynbody (is PyPI reachable?)"; exit 1; }
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/partcl-readers.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
"$partcl" run galaxies --n 2048 --steps 20 --snapshot-every 0 --frame-every 0 --quiet --out "$work/out"
export MPLCONFIGDIR="$work/matplotlib"
"$venv/bin/python" "$here/check_snapshot.py" "$work/out/snapshot_000020.h5" "$work/projection.png"
if [ $# -gt 0 ]; then
    "$@" -np 2 "$partcl" run galaxies --n 2048 --steps 20 --snapshot-every 0 --frame-every 0 --quiet --out "$work/ranks"
    "$venv/bin/python" "$here/check_snapshot.py" "$work/ranks/snapshot_000020.h5" "$work/ranks_projection.png"
fi
