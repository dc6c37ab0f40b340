#!/usr/bin/env bash
# Build partcl on the GPU machine (device tool) and check it there: the tests on NVIDIA's OpenCL,
# the dense benchmark, the default run. Results go to $OUT.
#
#   scripts/fetch-gpu-debs.sh        (here, once: the Debian packages the GPU machine lacks)
#   device run: bash scripts/gpu-check.sh   with carry [".deps/debs"]
#
# The GPU machine has CUDA, CMake, g++ and NVIDIA's OpenCL but no Debian packages: the headers
# and libraries partcl needs travel as .deb files and are unpacked with dpkg -x into .deps/root.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/partcl-gpu-out}
mkdir -p "$OUT"
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }

root=$PWD/.deps/root
rm -rf "$root" && mkdir -p "$root"
for f in .deps/debs/*.deb; do dpkg -x "$f" "$root"; done

# Libraries the machine lacks (by soname), and only those, go on the library path: the
# machine's own versions of the others stay in charge.
missing=$PWD/.deps/missing
rm -rf "$missing" && mkdir -p "$missing"
for lib in "$root"/usr/lib/x86_64-linux-gnu/*.so.* "$root"/usr/lib/x86_64-linux-gnu/hdf5/serial/*.so*; do
    [ -e "$lib" ] || continue
    name=$(basename "$lib")
    ldconfig -p | grep -q " $name " || ln -sf "$lib" "$missing/$name"
done
export LD_LIBRARY_PATH=$missing${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

mkdir -p /etc/OpenCL/vendors
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"

inc=$root/usr/include
lib=$root/usr/lib/x86_64-linux-gnu
log "configure"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DPARTCL_CUDA=OFF \
    -DCMAKE_PREFIX_PATH="$root/usr" \
    -DCMAKE_CXX_FLAGS="-isystem $inc -isystem $inc/hdf5/serial" \
    -DOpenCL_INCLUDE_DIR="$inc" -DOpenCL_LIBRARY="$lib/libOpenCL.so" \
    -DPARTCL_CLHPP_INCLUDE_DIR="$inc" -DBoost_INCLUDE_DIR="$inc" \
    -DHDF5_NO_FIND_PACKAGE_CONFIG_FILE=ON -DHDF5_C_COMPILER_EXECUTABLE=/nonexistent \
    -DHDF5_C_INCLUDE_DIR="$inc/hdf5/serial" -DHDF5_C_LIBRARY_hdf5="$lib/hdf5/serial/libhdf5.so" \
    -Ddoctest_DIR="$root/usr/lib/cmake/doctest" -DCLI11_DIR="$root/usr/share/cmake/CLI11" \
    -Dtomlplusplus_DIR="$lib/cmake/tomlplusplus" >"$OUT/configure.log" 2>&1 \
    || { log "configure failed"; tail -40 "$OUT/configure.log"; exit 1; }
log "build"
cmake --build build-gpu -j16 >"$OUT/build.log" 2>&1 || { log "build failed"; grep -m20 -B2 -A6 "error" "$OUT/build.log"; exit 1; }

P=build-gpu/tools/partcl
$P devices | tee "$OUT/devices.txt"
log "tests on NVIDIA OpenCL"
# The suites that run on the default device; the PoCL-only ones (two devices, cache race on
# PoCL) stay on the CPU.
PARTCL_DEVICE=nvidia ctest --test-dir build-gpu --output-on-failure -R "unit\.(precision|kernel|buffer|dense|dense_autotune|cache|build_error|source)|physics\." \
    >"$OUT/ctest-nvidia.log" 2>&1
tail -25 "$OUT/ctest-nvidia.log" | tee -a "$OUT/summary.txt"
log "dense benchmark, NVIDIA OpenCL"
PARTCL_DEVICE=nvidia build-gpu/benchmarks/partcl_bench_dense --n 16384,65536,262144,1048576 \
    --repeat 3 --no-reference >"$OUT/dense-nvidia.jsonl" 2>>"$OUT/summary.txt"
PARTCL_DEVICE=nvidia build-gpu/benchmarks/partcl_bench_dense --n 1048576 --repeat 3 --autotune \
    --no-reference >>"$OUT/dense-nvidia.jsonl" 2>>"$OUT/summary.txt"
for targets in 2 4; do
    PARTCL_DEVICE=nvidia build-gpu/benchmarks/partcl_bench_dense --n 1048576 --repeat 3 --tile 256 \
        --targets $targets --no-reference >>"$OUT/dense-nvidia.jsonl" 2>>"$OUT/summary.txt"
done
for tile in 128 256 512; do
    for targets in 1 2 4 8; do
        PARTCL_DEVICE=nvidia build-gpu/benchmarks/partcl_bench_dense --n 1048576 --repeat 3 --tile $tile \
            --targets $targets --fast-math --precision float --no-reference \
            >>"$OUT/dense-nvidia.jsonl" 2>>"$OUT/summary.txt"
    done
done
PARTCL_DEVICE=nvidia build-gpu/benchmarks/partcl_bench_dense --n 1048576 --repeat 3 --autotune \
    --fast-math --precision float --no-reference >>"$OUT/dense-nvidia.jsonl" 2>>"$OUT/summary.txt"
cat "$OUT/dense-nvidia.jsonl"
# What limits the kernel: issued instructions per interaction, issue-slot use, occupancy
# (Nsight Compute, where the machine has it and it can see NVIDIA's OpenCL launches).
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
if [ -n "$NCU" ]; then
    log "Nsight Compute, N = 262144 float, default shape and fast math"
    for flags in "" "--fast-math --tile 256 --targets 4"; do
        PARTCL_DEVICE=nvidia timeout 240 "$NCU" --target-processes all --kernel-name dense_gravity \
            --launch-skip 1 --launch-count 1 --metrics \
            smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg,smsp__inst_executed_pipe_xu.sum \
            build-gpu/benchmarks/partcl_bench_dense --n 262144 --precision float --repeat 1 \
            --no-reference $flags 2>&1 | grep -E "dense_gravity|smsp__|sm__|==ERROR|==WARNING" \
            | tee -a "$OUT/ncu.txt" | tail -8 | tee -a "$OUT/summary.txt"
    done
else
    log "no Nsight Compute on this machine"
fi
log "default run on the GPU"
PARTCL_DEVICE=nvidia $P run --out "$OUT/run" --frame-every 0 2>&1 | tail -5 | tee -a "$OUT/summary.txt"
rm -rf "$OUT/run"
log "done"
