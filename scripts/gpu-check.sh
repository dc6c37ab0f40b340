#!/usr/bin/env bash
# Build partcl with the CUDA backend on the GPU machine (device tool) and check it there: the
# `gpu` tests (CUDA and NVIDIA's OpenCL, each against the float64 reference and against each
# other), the dense benchmark on both backends, Nsight Compute on the CUDA launches, the tree and
# MPS benchmarks, the default run on both backends. Results go to $OUT: summary.txt, build.log,
# ctest-gpu.log, bench.log, ncu.txt and {dense,tree,mps}.jsonl (eight files: the device tool
# brings back no more).
#
#   scripts/fetch-gpu-debs.sh        (here, once: the Debian packages the GPU machine lacks)
#   device run: bash scripts/gpu-check.sh   with carry [".deps/debs"]
#
# The GPU machine has CUDA, CMake, g++ and NVIDIA's OpenCL but no Debian packages: the headers
# and libraries partcl needs travel as .deb files and are unpacked with dpkg -x into .deps/root.
#
# GPU_CHECK_PARTS picks parts (default all): tests dense ncu tree mps run.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/partcl-gpu-out}
PARTS=${GPU_CHECK_PARTS:-tests dense ncu tree mps run}
part() { [[ " $PARTS " == *" $1 "* ]]; }
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
export PATH=/usr/local/cuda/bin:$PATH

mkdir -p /etc/OpenCL/vendors
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee -a "$OUT/summary.txt"

inc=$root/usr/include
lib=$root/usr/lib/x86_64-linux-gnu
log "configure (CUDA backend, gpu tests)"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DPARTCL_CUDA=ON -DPARTCL_GPU_TESTS=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH="$root/usr" \
    -DCMAKE_CXX_FLAGS="-isystem $inc -isystem $inc/hdf5/serial" \
    -DCMAKE_CUDA_FLAGS="-isystem $inc" \
    -DOpenCL_INCLUDE_DIR="$inc" -DOpenCL_LIBRARY="$lib/libOpenCL.so" \
    -DPARTCL_CLHPP_INCLUDE_DIR="$inc" -DBoost_INCLUDE_DIR="$inc" -DPARTCL_VKFFT_INCLUDE_DIR="$inc" \
    -DHDF5_NO_FIND_PACKAGE_CONFIG_FILE=ON -DHDF5_C_COMPILER_EXECUTABLE=/nonexistent \
    -DHDF5_C_INCLUDE_DIR="$inc/hdf5/serial" -DHDF5_C_LIBRARY_hdf5="$lib/hdf5/serial/libhdf5.so" \
    -Ddoctest_DIR="$root/usr/lib/cmake/doctest" -DCLI11_DIR="$root/usr/share/cmake/CLI11" \
    -Dtomlplusplus_DIR="$lib/cmake/tomlplusplus" >"$OUT/build.log" 2>&1 \
    || { log "configure failed"; tail -40 "$OUT/build.log"; exit 1; }
log "build"
targets="--target partcl_cli partcl_bench_dense partcl_bench_tree partcl_bench_mps"
part tests && targets=""
cmake --build build-gpu -j16 $targets >>"$OUT/build.log" 2>&1 || { log "build failed"; grep -m20 -B2 -A6 "error" "$OUT/build.log"; exit 1; }

P=build-gpu/tools/partcl
for b in auto opencl cuda; do $P --backend $b devices 2>&1 | tee -a "$OUT/summary.txt"; done
if part tests; then
log "gpu tests (CUDA and NVIDIA OpenCL)"
ctest --test-dir build-gpu --output-on-failure -L gpu -j4 >"$OUT/ctest-gpu.log" 2>&1
grep -E "Test +#|tests passed|tests failed" "$OUT/ctest-gpu.log" | tee -a "$OUT/summary.txt"
fi

B=build-gpu/benchmarks/partcl_bench_dense
if part dense; then
log "dense benchmark, both backends"
for backend in cuda opencl; do
    PARTCL_DEVICE=gpu $B --backend $backend --n 16384,65536,262144,1048576 --repeat 3 \
        --no-reference >>"$OUT/dense.jsonl" 2>>"$OUT/bench.log"
    for targets in 2 4; do
        PARTCL_DEVICE=gpu $B --backend $backend --n 1048576 --repeat 3 --tile 256 \
            --targets $targets --no-reference >>"$OUT/dense.jsonl" 2>>"$OUT/bench.log"
        PARTCL_DEVICE=gpu $B --backend $backend --n 1048576 --repeat 3 --tile 256 \
            --targets $targets --fast-math --precision float --no-reference \
            >>"$OUT/dense.jsonl" 2>>"$OUT/bench.log"
    done
done
python3 - "$OUT/dense.jsonl" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
for r in rows:
    print(f"{r['backend']:6} {r['precision']:7} N={r['n']:8} tile={r['tile']:3} targets={r['targets']} "
          f"fast={str(r['fast_math'])[0]} {r['interactions_per_s']:.3e}")
PY
fi
# What limits the kernel: issued instructions per interaction, issue-slot use, occupancy.
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
if ! part ncu; then
    :
elif [ -n "$NCU" ]; then
    log "Nsight Compute, CUDA backend, N = 262144, default shape"
    for precision in float double; do
        PARTCL_DEVICE=gpu timeout 200 "$NCU" --kernel-name dense_gravity \
            --launch-skip 1 --launch-count 1 --metrics \
            smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg,smsp__inst_executed_pipe_xu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_fp64.sum,launch__registers_per_thread \
            $B --backend cuda --n 262144 --precision $precision --repeat 1 --no-reference 2>&1 \
            | grep -E "dense_gravity|smsp__|sm__|launch__|==ERROR|==WARNING" \
            | tee -a "$OUT/ncu.txt" | tail -10 | tee -a "$OUT/summary.txt"
    done
else
    log "no Nsight Compute on this machine"
fi
if part tree; then
    log "tree benchmark (Plummer, float): per-body walk against group walks, unstaged and staged"
    T=build-gpu/benchmarks/partcl_bench_tree
    PARTCL_DEVICE=gpu $T --backend cuda --n 65536,262144,1048576 --precision float \
        --theta 0.3,0.4,0.5,0.6,0.7 --group-size 1,32,64 --stage 0,256 --traversal stackless \
        --repeat 3 >>"$OUT/tree.jsonl" 2>>"$OUT/bench.log"
    PARTCL_DEVICE=gpu $T --backend cuda --n 1048576 --precision float --theta 0.5 \
        --group-size 32,64 --stage 0,256 --traversal nested --repeat 3 --no-dense \
        >>"$OUT/tree.jsonl" 2>>"$OUT/bench.log"
    python3 - "$OUT/tree.jsonl" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
for l in open(sys.argv[1]):
    if not l.startswith("{"): continue
    r = json.loads(l)
    print(f"{r['backend']:6} N={r['n']:8} theta={r['theta']} {r['traversal']:9} group={r['group_size']:3} "
          f"stage={r['stage_size']:3} build={r['build_seconds']*1e3:.2f} ms "
          f"force={r['force_seconds']*1e3:.2f} ms dense={r.get('dense_seconds', 0)*1e3:.1f} ms "
          f"walk_speedup={r.get('walk_speedup', 1):.2f} "
          f"median={r['median_error']:.2e} p99={r['p99_error']:.2e}")
PY
fi
if part mps; then
    log "MPS benchmark (3-D dam break, float, CUDA)"
    PARTCL_BACKEND=cuda PARTCL_DEVICE=gpu build-gpu/benchmarks/partcl_bench_mps --dims 3 \
        --n 100000,1000000 --precision float --steps 20 --no-reference \
        >>"$OUT/mps.jsonl" 2>>"$OUT/bench.log"
    cat "$OUT/mps.jsonl" | tee -a "$OUT/summary.txt"
fi
for backend in cuda opencl; do
    part run || break
    log "default run on the GPU, $backend"
    PARTCL_DEVICE=gpu $P --backend $backend run --out "$OUT/run-$backend" --frame-every 0 2>&1 \
        | tail -4 | tee -a "$OUT/summary.txt"
    rm -rf "$OUT/run-$backend"
done
log "done"
