#!/usr/bin/env bash
# Installs, with apt-get, what building and testing partcl needs on Debian 12 (bookworm):
# the compiler and CMake, the OpenCL loader and C++ headers, PoCL (an OpenCL CPU device for any
# machine), Oclgrind (the kernel checker the `oclgrind` tests use), Boost, doctest, CLI11,
# nlohmann-json (the JSON the tool and the benchmarks print), OpenSSL's libcrypto (checkpoint
# seals and the program cache's keys), the libraries of io (HDF5, toml++, stb) and VkFFT,
# clinfo, hdf5-tools (h5diff, for scripts/compare-builtins.sh), python3-venv (the
# snapshot-readers test makes a virtual environment with yt and pynbody from PyPI), python3-dev
# (the Python bindings) and Open MPI (the dist layer's ranks, PARTCL_MPI, and the `mpi` tests
# under mpirun). Then the Python bindings' build and test tools from PyPI (nanobind,
# scikit-build-core, numpy, pytest, and matplotlib for the examples) into the clone's .venv,
# where CMake finds them (Debian 12 keeps pip out of the system's Python, PEP 668).
#
#   bash scripts/install-deps.sh
#
# Runs as root or through sudo (apt-get only). Safe to run again: when everything is already
# installed it touches nothing (and needs no network).
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  ocl-icd-opencl-dev opencl-clhpp-headers pocl-opencl-icd oclgrind clinfo
  libboost-dev doctest-dev libcli11-dev nlohmann-json3-dev libssl-dev
  libhdf5-dev hdf5-tools libtomlplusplus-dev libstb-dev libvkfft-dev
  python3-venv python3-dev libopenmpi-dev openmpi-bin
)

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps.sh: apt-get not found; this script is for Debian 12. Install by hand:" >&2
  echo "  ${packages[*]}" >&2
  exit 1
fi
if [ -r /etc/os-release ]; then
  . /etc/os-release
  if [ "${ID:-}" != debian ] || [ "${VERSION_ID:-}" != 12 ]; then
    echo "install-deps.sh: note: written for Debian 12, this is ${PRETTY_NAME:-unknown}; trying anyway" >&2
  fi
fi

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$package")
done

python_tools() {
  local venv python
  venv="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.venv"
  local tools=(nanobind scikit-build-core numpy pytest matplotlib)
  if "$venv/bin/python" -c 'import nanobind, scikit_build_core, numpy, pytest, matplotlib' 2>/dev/null; then
    echo "install-deps.sh: $venv has ${tools[*]}"
    return
  fi
  python=/usr/bin/python3
  [ -x "$python" ] || python=python3
  echo "install-deps.sh: making $venv with ${tools[*]} (from PyPI)"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "${tools[@]}"
}

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps.sh: all ${#packages[@]} packages already installed"
  python_tools
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install-deps.sh: not root and no sudo; run it as root to install: ${missing[*]}" >&2
  exit 1
fi
apt=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o Dpkg::Use-Pty=0)

echo "install-deps.sh: installing ${missing[*]}"
"${apt[@]}" -qq update
# -qq keeps apt to errors; dpkg's per-package lines go to the log only when something fails.
log=$(mktemp "${TMPDIR:-/tmp}/partcl-install-deps.XXXXXX")
trap 'rm -f "$log"' EXIT
if ! "${apt[@]}" -qq -y install --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
  cat "$log" >&2
  echo "install-deps.sh: apt-get install failed" >&2
  exit 1
fi
python_tools
echo "install-deps.sh: done"
