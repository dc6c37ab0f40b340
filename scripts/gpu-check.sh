#!/usr/bin/env bash
# Build partcl with the CUDA backend on the GPU machine (device tool) and check it there: the
# `gpu` tests (CUDA and NVIDIA's OpenCL, each against the float64 reference and against each
# other), the dense benchmark on both backends, Nsight Compute on the CUDA launches, the tree,
# MPS and PIC benchmarks, per-kernel times of the model steps, the default run on both backends.
# Results go to $OUT: summary.txt, log.txt (build and benchmark progress), ctest-gpu.log,
# ncu.txt and {dense,tree,mps,pic}.jsonl (eight files: the device tool brings back no more).
#
#   scripts/fetch-gpu-debs.sh        (here, once: the Debian packages the GPU machine lacks)
#   device run: bash scripts/gpu-check.sh   with carry [".deps/debs"]
#
# The GPU machine has CUDA, CMake, g++ and NVIDIA's OpenCL but no Debian packages: the headers
# and libraries partcl needs travel as .deb files and are unpacked with dpkg -x into .deps/root.
#
# GPU_CHECK_PARTS picks parts (default all but twogpu, ranks, parity and bounds): tests python dense
# ncu tree treesteps treencu treepm cosmology mps pic profile bounds run twogpu ranks selection parity (bounds:
# each kernel of the PIC and MPS steps against the memory's and the SMs' peaks; treepm: TreePM's parts at
# 64^3 to 256^3 bodies on both backends, into treepm.jsonl; cosmology: the built-in at 128^3 and
# 256^3, its CSVs and plots; ranks: needs Open MPI's packages and several GPUs;
# python: the pytest suite under the machine's python3, which has nanobind, numpy, pytest,
# PyTorch and CuPy, on both backends; its log goes to log.txt).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/partcl-gpu-out}
PARTS=${GPU_CHECK_PARTS:-tests python dense ncu tree treencu treepm cosmology mps pic profile run}
part() { [[ " $PARTS " == *" $1 "* ]]; }
mkdir -p "$OUT"
log() { echo "== $(date +%T) $*" | tee -a "$OUT/summary.txt"; }

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
# Open MPI, where its packages came along (fetch-gpu-debs.sh): unpacked under $root, found
# there through OPAL_PREFIX (its wrapper compiler and launcher relocate) and PMIx's component
# path.
mpi_args=()
if [ -x "$root/usr/bin/orterun" ]; then
    export OPAL_PREFIX=$root/usr PATH=$root/usr/bin:$PATH
    export PMIX_MCA_mca_base_component_path=$lib/pmix2/lib/pmix
    export LD_LIBRARY_PATH=$lib/openmpi/lib:$LD_LIBRARY_PATH
    mpi_args=(-DPARTCL_MPI=ON -DMPI_CXX_COMPILER="$root/usr/bin/mpicxx.openmpi"
              -DMPIEXEC_EXECUTABLE="$root/usr/bin/orterun")
fi
# The image's compiler ($CXX, /opt/gcc) has no shared libstdc++, so it links libstdc++
# statically into shared libraries (and nvcc, using it as host compiler, puts its directories
# first on the CUDA library's link line). A Python process that loaded the system's libstdc++
# first (numpy does) then holds two, whose locale tables disagree: std::ostream and std::regex
# crashed in libpartcl and libpartcl-cuda. The system's g++, for both, links it shared.
if [ "$("${CXX:-g++}" -print-file-name=libstdc++.so)" = libstdc++.so ] && [ -x /usr/bin/g++ ]; then
    export CC=/usr/bin/gcc CXX=/usr/bin/g++ CUDAHOSTCXX=/usr/bin/g++
fi
log "configure (CUDA backend, gpu tests; host compiler ${CXX:-g++})"
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
    -Dtomlplusplus_DIR="$lib/cmake/tomlplusplus" "${mpi_args[@]}" \
    -DPARTCL_PYTHON=AUTO -DPython_EXECUTABLE="$(command -v python3)" \
    >"$OUT/log.txt" 2>&1 \
    || { log "configure failed"; tail -40 "$OUT/log.txt"; exit 1; }
log "build"
targets="--target partcl_cli partcl_bench_dense partcl_bench_tree partcl_bench_tree_pm partcl_bench_mps partcl_bench_pic partcl_bench_device_copy partcl_bench_sort"
# GPU_CHECK_TARGETS: the targets to build instead (a part that needs fewer).
[ -n "${GPU_CHECK_TARGETS:-}" ] && targets="--target $GPU_CHECK_TARGETS"
part tests && targets=""
[ -n "$targets" ] && part python && targets="$targets --target _partcl"
cmake --build build-gpu -j"$(nproc)" $targets >>"$OUT/log.txt" 2>&1 || { log "build failed"; grep -m20 -B2 -A6 "error" "$OUT/log.txt"; exit 1; }

P=build-gpu/tools/partcl
for b in auto opencl cuda; do $P --backend $b devices 2>&1 | tee -a "$OUT/summary.txt"; done
if part tests; then
log "gpu tests (CUDA and NVIDIA OpenCL)"
# GPU_CHECK_TESTS: a ctest -R pattern over the gpu tests (default: all of them).
ctest --test-dir build-gpu --output-on-failure -L gpu -R "${GPU_CHECK_TESTS:-.}" -j4 >"$OUT/ctest-gpu.log" 2>&1
grep -E "Test +#|tests passed|tests failed" "$OUT/ctest-gpu.log" | tee -a "$OUT/summary.txt"
fi

if part python; then
    log "python tests (CUDA backend, then NVIDIA's OpenCL)"
    [ -e build-gpu/python/partcl/__init__.py ] || log "no Python module was built (see log.txt)"
    for backend in cuda opencl; do
        PARTCL_BACKEND=$backend PARTCL_DEVICE=gpu PYTHONPATH=$PWD/build-gpu/python PARTCL_CLI=$PWD/$P \
            PARTCL_CACHE_DIR=$PWD/build-gpu/py-cache python3 -m pytest -p no:cacheprovider -rs \
            python/tests >>"$OUT/log.txt" 2>&1
        echo "$backend: pytest exit $?; $(tail -1 "$OUT/log.txt")" | tee -a "$OUT/summary.txt"
    done
fi

B=build-gpu/benchmarks/partcl_bench_dense
if part dense; then
log "dense benchmark, both backends"
for backend in cuda opencl; do
    PARTCL_DEVICE=gpu $B --backend $backend --n 16384,65536,262144,1048576 --repeat 3 \
        --no-reference >>"$OUT/dense.jsonl" 2>>"$OUT/log.txt"
    # The same launches without source parts, for the comparison.
    PARTCL_DEVICE=gpu $B --backend $backend --n 16384,65536,262144,1048576 --repeat 3 \
        --parts 1 --no-reference >>"$OUT/dense.jsonl" 2>>"$OUT/log.txt"
    for targets in 2 4 8; do
        PARTCL_DEVICE=gpu $B --backend $backend --n 1048576 --repeat 3 --tile 256 \
            --targets $targets --no-reference >>"$OUT/dense.jsonl" 2>>"$OUT/log.txt"
        PARTCL_DEVICE=gpu $B --backend $backend --n 1048576 --repeat 3 --tile 256 \
            --targets $targets --fast-math --precision float --no-reference \
            >>"$OUT/dense.jsonl" 2>>"$OUT/log.txt"
    done
done
python3 - "$OUT/dense.jsonl" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
for r in rows:
    print(f"{r['backend']:6} {r['precision']:7} N={r['n']:8} tile={r['tile']:3} targets={r['targets']} "
          f"parts={r.get('parts', 1):3} fast={str(r['fast_math'])[0]} {r['interactions_per_s']:.3e}")
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
# A run's steps (the tree refitted between builds, the relative criterion), not single cold
# evaluations: docs/performance.md "A run's tree step". Both backends at 1M, CUDA then
# OpenCL at 16M, into tree_steps.jsonl.
if part treesteps; then
    log "tree steps: Plummer runs, 1M and 16M, float, leaf 4, groups of 128"
    T=build-gpu/benchmarks/partcl_bench_tree
    A="--group-size 128 --leaf-size 4 --error-sample 2048"
    for b in cuda opencl; do
        PARTCL_DEVICE=gpu timeout 100 $T --backend $b --evolve 24 --n 1048576 --theta 0.75,0.8,0.85 \
            --relative-accuracy 0,0.001,0.003 --rebuild-every 1,64 --rebuild-growth 0.02 $A \
            >>"$OUT/tree_steps.jsonl" 2>>"$OUT/log.txt"
    done
    PARTCL_DEVICE=gpu timeout 200 $T --backend cuda --evolve 16 --n 16777216 --theta 0.75,0.85 \
        --relative-accuracy 0,0.001,0.003 --rebuild-every 1,64 --rebuild-growth 0.05 $A \
        >>"$OUT/tree_steps.jsonl" 2>>"$OUT/log.txt"
    PARTCL_DEVICE=gpu timeout 90 $T --backend opencl --evolve 16 --n 16777216 --theta 0.85 \
        --relative-accuracy 0,0.003 --rebuild-every 1,64 --rebuild-growth 0.05 $A \
        >>"$OUT/tree_steps.jsonl" 2>>"$OUT/log.txt"
    python3 scripts/plot_tree_steps.py "$OUT/tree_steps.png" "$OUT/tree_steps.jsonl" | tee -a "$OUT/summary.txt"
fi
if part tree; then
    log "tree benchmark (Plummer, float): per-body walk against group walks, alone and listed"
    T=build-gpu/benchmarks/partcl_bench_tree
    # GPU_CHECK_TREE_ARGS replaces the sweep's arguments (a narrower sweep while tuning).
    PARTCL_DEVICE=gpu $T --backend cuda ${GPU_CHECK_TREE_ARGS:---n 262144,1048576 --precision float \
        --error-sample 4096 --theta 0.3,0.4,0.5,0.6 --group-size 1,32,64 --list auto,0 \
        --traversal stackless --repeat 3} >>"$OUT/tree.jsonl" 2>>"$OUT/log.txt"
    PARTCL_DEVICE=gpu $T --backend cuda --n 1048576 --precision float --theta 0.5 \
        --group-size 32,64 --traversal nested --repeat 3 --no-dense \
        >>"$OUT/tree.jsonl" 2>>"$OUT/log.txt"
    python3 - "$OUT/tree.jsonl" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
for l in open(sys.argv[1]):
    if not l.startswith("{"): continue
    r = json.loads(l)
    print(f"{r['backend']:6} N={r['n']:8} theta={r['theta']} leaf={r.get('leaf_size', 8)} {r['traversal']:9} group={r['group_size']:3} "
          f"list={r['list_size']:3} build={r['build_seconds']*1e3:.2f} ms "
          f"force={r['force_seconds']*1e3:.2f} ms dense={r.get('dense_seconds', 0)*1e3:.1f} ms "
          f"walk_speedup={r.get('walk_speedup', 1):.2f} "
          f"median={r['median_error']:.2e} p99={r['p99_error']:.2e}")
PY
fi
if part mps; then
    log "MPS benchmark (3-D dam break, float, CUDA)"
    PARTCL_BACKEND=cuda PARTCL_DEVICE=gpu build-gpu/benchmarks/partcl_bench_mps --dims 3 \
        --n 100000,1000000 --precision float --steps 20 --no-reference \
        >>"$OUT/mps.jsonl" 2>>"$OUT/log.txt"
    cat "$OUT/mps.jsonl" | tee -a "$OUT/summary.txt"
fi
if part pic; then
    log "PIC benchmark (3-D, float, CUDA): 1M-16M particles on 64^3 and 128^3, both deposits"
    PARTCL_BACKEND=cuda PARTCL_DEVICE=gpu build-gpu/benchmarks/partcl_bench_pic --dims 3 \
        --grid 64,128 --n 1000000,4000000,16000000 --precision float --steps 10 --no-reference \
        >>"$OUT/pic.jsonl" 2>>"$OUT/log.txt"
    # Against the OpenMP reference of the same step on the machine's CPU, in the same run.
    PARTCL_BACKEND=cuda PARTCL_DEVICE=gpu build-gpu/benchmarks/partcl_bench_pic --dims 3 \
        --grid 64 --n 1000000 --precision float,double --steps 10 \
        >>"$OUT/pic.jsonl" 2>>"$OUT/log.txt"
    PARTCL_BACKEND=opencl PARTCL_DEVICE=gpu build-gpu/benchmarks/partcl_bench_pic --dims 3 \
        --grid 128 --n 16000000 --precision float,double --steps 10 --no-reference \
        >>"$OUT/pic.jsonl" 2>>"$OUT/log.txt"
    python3 - "$OUT/pic.jsonl" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
for l in open(sys.argv[1]):
    if not l.startswith("{"): continue
    r = json.loads(l)
    print(f"{r['platform'][:14]:14} {r['precision']:7} grid={r['grid']}^3 N={r['n']:9} {r['deposit']:6} "
          f"{r['seconds_per_step']*1e3:8.3f} ms/step {r['particle_steps_per_s']:.3e} particle-steps/s"
          + (f" ({r['ratio']:.1f}x OpenMP, {r['reference_threads']} threads)" if 'ratio' in r else ""))
PY
fi
# What limits the tree walk: Nsight Compute's throughput, occupancy, warp-state and instruction
# sections for one walk at N = 1M.
if part treencu && [ -n "$NCU" ]; then
    # The walk at the 1M goal's settings and at 16M: what bounds it (issue or memory).
    for n in 1048576 16777216; do
        log "Nsight Compute: tree walk, CUDA, N = $n, float, theta 0.85, leaf 4, groups of 128"
        PARTCL_DEVICE=gpu timeout 300 "$NCU" --kernel-name tree_gravity --launch-skip 1 --launch-count 1 \
            --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
            --section InstructionStats --section MemoryWorkloadAnalysis --section SchedulerStats \
            build-gpu/benchmarks/partcl_bench_tree --backend cuda --n $n --precision float \
            --theta 0.85 --leaf-size 4 --group-size 128 --repeat 1 --no-dense --error-sample 256 2>&1 \
            | grep -vE "^\{|^\[|^==PROF==" | tee -a "$OUT/ncu.txt" \
            | grep -E "Duration|Throughput|Warp Cycles|Issued|Occupancy|Registers|Shared Memory|Hit Rate|fused" \
            | tee -a "$OUT/summary.txt"
    done
fi
# The model steps the `profile` and `bounds` parts run under Nsight Compute (CUDA backend).
PIC_STEP=(build-gpu/benchmarks/partcl_bench_pic --dims 3 --grid 128 --n 16000000 --precision float
          --steps 1 --no-reference)
MPS_STEPS=(build-gpu/benchmarks/partcl_bench_mps --dims 3 --n 1000000 --precision float --steps 2
           --no-reference)
# Where a model step's time goes: GPU time per kernel over a few steps (Nsight Compute, one
# metric, so one pass per launch), summed by kernel name.
if part profile && [ -n "$NCU" ]; then
    # GPU_CHECK_PROFILE: a pattern; only the profiles whose names match it run.
    profile() {
        local name=$1 launches=$2; shift 2
        [[ "$name" =~ ${GPU_CHECK_PROFILE:-.} ]] || return 0
        log "per-kernel GPU time: $name (first $launches launches)"
        PARTCL_BACKEND=cuda PARTCL_DEVICE=gpu timeout 240 "$NCU" --metrics gpu__time_duration.sum \
            --csv --launch-count "$launches" "$@" 2>/dev/null >"$OUT/profile.csv"
        python3 scripts/kernel_bounds.py --top 14 "$OUT/profile.csv" | tee -a "$OUT/ncu.txt" "$OUT/summary.txt"
        rm -f "$OUT/profile.csv"
    }
    profile "PIC 3-D float 16M on 128^3, gather deposit" 200 "${PIC_STEP[@]}" --deposit gather
    profile "PIC 3-D float 16M on 128^3, atomic deposit" 200 "${PIC_STEP[@]}" --deposit atomic
    profile "MPS 3-D float 1M fluid particles" 300 "${MPS_STEPS[@]}"
    profile "TreePM 256^3 uniform bodies, 256^3 mesh, float" 3000 build-gpu/benchmarks/partcl_bench_tree_pm \
        --backend cuda --side 256 --bodies uniform --repeat 1
    profile "TreePM 256^3 uniform bodies, 512^3 mesh, float" 3000 build-gpu/benchmarks/partcl_bench_tree_pm \
        --backend cuda --side 256 --bodies uniform --mesh-factor 2 --repeat 1
    profile "tree 1M float theta 0.5" 1500 build-gpu/benchmarks/partcl_bench_tree --backend cuda \
        --n 1048576 --precision float --theta 0.5 --traversal stackless --repeat 1 --no-dense \
        --error-sample 1024
fi
# What bounds the PIC and MPS steps: every launch of a step with Nsight Compute's DRAM, L2 and SM
# throughputs (percent of peak) and the DRAM bytes it moved, summed by kernel name into
# bounds.txt (python3 scripts/kernel_bounds.py reads the CSV).
if part bounds && [ -n "$NCU" ]; then
    bounds() {
        local name=$1 launches=$2; shift 2
        log "what bounds each kernel: $name (CUDA, first $launches launches)"
        PARTCL_BACKEND=cuda PARTCL_DEVICE=gpu timeout 240 "$NCU" --csv --launch-count "$launches" --metrics \
gpu__time_duration.sum,dram__bytes.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,\
sm__warps_active.avg.pct_of_peak_sustained_active "$@" 2>/dev/null >"$OUT/bounds.csv"
        echo "# $name" >>"$OUT/bounds.txt"
        python3 scripts/kernel_bounds.py "$OUT/bounds.csv" | tee -a "$OUT/bounds.txt" "$OUT/summary.txt"
        rm -f "$OUT/bounds.csv"
    }
    bounds "PIC 3-D float 16M on 128^3, gather deposit, one step" 200 "${PIC_STEP[@]}" --deposit gather
    bounds "MPS 3-D float 1M fluid particles, two steps" 300 "${MPS_STEPS[@]}"
fi
# Two GPUs (nvidia-h200-x2, issue 26): every family on each GPU alone and on one context of
# both, CUDA and NVIDIA's OpenCL, same build, same run; the split lines carry each launch's
# per-device share and kernel time ("launches"). Not in the default parts.
if part twogpu; then
    nvidia-smi topo -m 2>&1 | tee -a "$OUT/summary.txt"
    D=build-gpu/benchmarks
    J=$OUT/twogpu.jsonl
    bench() { timeout "${GPU_CHECK_TIMEOUT:-120}" "$@" >>"$J" 2>>"$OUT/log.txt" || log "failed ($?): $*"; }
    # GPU_CHECK_TWOGPU: the families to measure (default all), and `copy` (partcl_bench_device_copy:
    # the ways an array moves between the GPUs). Copies, dense and tree on both backends first,
    # then PIC and MPS: a run cut short keeps the most.
    families=" ${GPU_CHECK_TWOGPU:-copy dense tree pic mps} "
    for backend in cuda opencl; do
        export PARTCL_BACKEND=$backend PARTCL_DEVICE=gpu
        if [[ $families == *" copy "* ]]; then
            log "two GPUs, $backend: copies from one to the other"
            bench $D/partcl_bench_device_copy --backend $backend --mib 1,16,256
        fi
        if [[ $families == *" dense "* ]]; then
            log "two GPUs, $backend: dense N = 1M, float and double"
            bench $D/partcl_bench_dense --backend $backend --n 1048576 --precision float,double --repeat 3 --split
        fi
        if [[ $families == *" tree "* ]]; then
            log "two GPUs, $backend: tree N = 16M, float, theta 0.6"
            tree_args="--backend $backend --n 16777216 --precision float --theta 0.6 --traversal stackless --group-size 32 --repeat 3 --no-dense --error-sample 512"
            bench $D/partcl_bench_tree $tree_args
            bench $D/partcl_bench_tree $tree_args --split
        fi
    done
    for backend in cuda opencl; do
        export PARTCL_BACKEND=$backend PARTCL_DEVICE=gpu
        if [[ $families == *" pic "* ]]; then
            log "two GPUs, $backend: PIC 16M on 128^3, float"
            pic_args="--dims 3 --grid 128 --n 16000000 --precision float --deposit gather --steps 5 --no-reference"
            bench $D/partcl_bench_pic $pic_args
            bench $D/partcl_bench_pic $pic_args --split
        fi
        if [[ $families == *" mps "* ]]; then
            log "two GPUs, $backend: MPS 3-D 4M, float, against one GPU in turns"
            bench $D/partcl_bench_mps --dims 3 --n 4000000 --precision float --steps 5 --split
        fi
    done
    unset PARTCL_BACKEND PARTCL_DEVICE
    python3 - "$J" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
for l in open(sys.argv[1]):
    if not l.startswith("{"): continue
    r = json.loads(l)
    b = r.get("backend", "opencl" if "CUDA" not in r["platform"] else "cuda")
    t = r.get("seconds") or r.get("total_seconds") or r.get("seconds_per_step")
    extra = ""
    if "one_device_seconds" in r: extra = f" one={r['one_device_seconds']:.4g} s spread/one={r['spread_over_one']}"
    if "one_device_seconds_per_step" in r: extra = f" one={r['one_device_seconds_per_step']:.4g} s spread/one={r['spread_over_one']} migrated={r['migrated']}"
    if "deposit" in r: extra = f" {r['deposit']}"
    if r["bench"] == "device_copy":
        print(f"copy  {b:6} {r['way']:30} {r['mib']:6g} MiB t={r['seconds']:.4g} s {r['gb_per_s']:.4g} GB/s correct={r['correct']}")
        continue
    if "build_seconds" in r: extra = f" build={r['build_seconds']:.4g} force={r['force_seconds']:.4g} median={r['median_error']:.2e}"
    print(f"{r['bench']:5} {r['platform'][:12]:12} x{r.get('devices', 1)} {r.get('precision',''):6} N={r['n']:9}{extra} t={t:.4g} s")
    for launch in r.get("launches", []):
        print(f"      {launch['name']:22} share={launch['share']} kernel_s={launch['kernel_seconds']}")
PY
fi
if part ranks; then
    # Dense and tree gravity, PIC and MPS over MPI ranks, each rank on its share of the GPUs (one
    # GPU each on two), against one rank: docs/scaling.md. GPU_CHECK_RANKS_DENSE / _TREE / _PIC
    # / _MPS: the sizes (PIC: particles on a 128^3 grid, and twice that on 128^2 x 256 for the
    # weak scaling; MPS: fluid particles of a 3-D dam break; _ESSENTIAL: locally essential
    # trees' pieces); GPU_CHECK_RANKS_MODELS (dense tree essential pic mps),
    # GPU_CHECK_RANKS_BACKENDS: which models and backends.
    J=$OUT/ranks.jsonl
    # GPU_CHECK_CUDA_MPS=1: ranks sharing a GPU through CUDA's Multi-Process Service (its
    # control daemon runs for the part; NVIDIA's OpenCL makes no context under it).
    if [ "${GPU_CHECK_CUDA_MPS:-0}" = 1 ]; then
        export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
        mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
        nvidia-cuda-mps-control -d && log "CUDA MPS daemon started"
    fi
    for backend in ${GPU_CHECK_RANKS_BACKENDS:-cuda opencl}; do
        # The mpi suite (where partcl_tests was built), a rank a GPU.
        if [ -x build-gpu/tests/partcl_tests ]; then
            log "mpi suite on 2 ranks, $backend"
            PARTCL_BACKEND=$backend PARTCL_DEVICE=gpu timeout 300 orterun --allow-run-as-root \
                --bind-to none -np 2 build-gpu/tests/partcl_tests -ts=mpi --no-skip 2>&1 \
                | tail -4 | tee -a "$OUT/summary.txt"
        fi
        for ranks in 1 2; do
            for model in ${GPU_CHECK_RANKS_MODELS:-dense tree essential pic mps}; do
                log "$model over $ranks ranks, $backend"
                run_ranks=(timeout "${GPU_CHECK_TIMEOUT:-120}" orterun --allow-run-as-root
                           --bind-to none -np $ranks)
                if [ $model = pic ]; then
                    for scaling in "" --weak; do
                        PARTCL_DEVICE=gpu "${run_ranks[@]}" build-gpu/benchmarks/partcl_bench_pic_ranks \
                            --backend $backend --dims 3 --grid 128 \
                            --n "${GPU_CHECK_RANKS_PIC:-4194304,16777216}" --precision float \
                            --steps 5 $scaling >>"$J" 2>>"$OUT/log.txt" || log "failed ($?)"
                    done
                    continue
                fi
                if [ $model = mps ]; then
                    PARTCL_DEVICE=gpu "${run_ranks[@]}" build-gpu/benchmarks/partcl_bench_mps_ranks \
                        --backend $backend --dims 3 --n "${GPU_CHECK_RANKS_MPS:-1000000,4000000}" \
                        --precision float --steps 5 >>"$J" 2>>"$OUT/log.txt" || log "failed ($?)"
                    continue
                fi
                if [ $model = essential ]; then
                    PARTCL_DEVICE=gpu "${run_ranks[@]}" build-gpu/benchmarks/partcl_bench_essential_tree \
                        --backend $backend --n "${GPU_CHECK_RANKS_ESSENTIAL:-1048576,4194304}" \
                        --precision float --theta 0.6 --repeat 3 >>"$J" 2>>"$OUT/log.txt" || log "failed ($?)"
                    continue
                fi
                if [ $model = dense ]; then sizes=${GPU_CHECK_RANKS_DENSE:-262144,1048576}
                else sizes=${GPU_CHECK_RANKS_TREE:-1048576,4194304,16777216}; fi
                PARTCL_DEVICE=gpu "${run_ranks[@]}" build-gpu/benchmarks/partcl_bench_gravity_ranks \
                    --backend $backend --gravity $model --n "$sizes" --precision float \
                    --repeat 3 >>"$J" 2>>"$OUT/log.txt" || log "failed ($?)"
            done
        done
    done
    [ "${GPU_CHECK_CUDA_MPS:-0}" = 1 ] && echo quit | nvidia-cuda-mps-control
    cat "$J" >>"$OUT/summary.txt"
fi
if part selection; then
    # What locally essential trees' selection costs one rank of K, K from 2 to 8192, in one
    # process (partcl_bench_essential_selection): docs/scaling.md. GPU_CHECK_SELECTION: the sizes.
    J=$OUT/selection.jsonl
    for backend in cuda opencl; do
        log "essential selection, $backend"
        PARTCL_DEVICE=gpu timeout "${GPU_CHECK_TIMEOUT:-120}" orterun --allow-run-as-root -np 1 \
            build-gpu/benchmarks/partcl_bench_essential_selection --backend $backend \
            --n "${GPU_CHECK_SELECTION:-4194304}" --ranks 2,16,128,1024,8192 --precision float --theta 0.6 \
            --repeat 5 >>"$J" 2>>"$OUT/log.txt" || log "failed ($?)"
    done
    cat "$J" >>"$OUT/summary.txt"
fi
# OpenCL against CUDA on the same GPU (issue 24): SortByKey's two methods on both backends,
# then the PIC step, the tree build and walk and the MPS step on each backend, same build,
# same run. Not in the default parts.
if part parity; then
    D=build-gpu/benchmarks
    J=$OUT/parity.jsonl
    bench() { timeout "${GPU_CHECK_TIMEOUT:-180}" "$@" >>"$J" 2>>"$OUT/log.txt" || log "failed ($?): $*"; }
    for backend in cuda opencl; do
        export PARTCL_BACKEND=$backend PARTCL_DEVICE=gpu
        log "sorts, $backend: the library's and partcl's radix sort"
        bench $D/partcl_bench_sort --backend $backend --n 1048576,16777216 --repeat 5
        log "PIC 16M on 128^3, float, $backend"
        bench $D/partcl_bench_pic --dims 3 --grid 128 --n 16000000 --precision float \
            --deposit gather,atomic --steps 10 --no-reference
        log "tree N = 1M and 16M, float, theta 0.6, $backend"
        bench $D/partcl_bench_tree --backend $backend --n 1048576,16777216 --precision float \
            --theta 0.6 --traversal stackless --group-size 32 --repeat 3 --no-dense --error-sample 2048
        log "MPS 3-D 1M, float, $backend"
        bench $D/partcl_bench_mps --dims 3 --n 1000000 --precision float --steps 20 --no-reference
        # The tree rows as a run takes them: refitted between builds, the relative criterion,
        # the walk's faster shape, at the largest theta within the error bound at each size.
        log "tree run steps, 1M (theta 0.85) and 16M (theta 0.75), float, $backend"
        bench $D/partcl_bench_tree --backend $backend --evolve 12 --n 1048576 --precision float \
            --theta 0.85 --relative-accuracy 0.003 --rebuild-every 64 --rebuild-growth 0.02 \
            --group-size 128 --leaf-size 4 --error-sample 1024
        bench $D/partcl_bench_tree --backend $backend --evolve 6 --n 16777216 --precision float \
            --theta 0.75 --relative-accuracy 0.003 --rebuild-every 64 --rebuild-growth 0.05 \
            --group-size 128 --leaf-size 4 --error-sample 512
    done
    unset PARTCL_BACKEND PARTCL_DEVICE
    python3 - "$J" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
for l in open(sys.argv[1]):
    if not l.startswith("{"): continue
    r = json.loads(l)
    b = r.get("backend", "cuda" if r["platform"] == "CUDA" else "opencl")
    if r["bench"] == "sort":
        print(f"sort  {b:6} {r['keys']:6} n={r['n']:9} library={r['library_seconds']*1e3:8.3f} ms "
              f"radix={r['radix_seconds']*1e3:8.3f} ms library/radix={r['library_over_radix']:.2f} "
              f"auto={r['automatic']} same={r['same']}")
    elif r["bench"] == "tree":
        print(f"tree  {b:6} N={r['n']:9} build={r['build_seconds']*1e3:.2f} ms "
              f"force={r['force_seconds']*1e3:.2f} ms median={r['median_error']:.2e}")
    elif r["bench"] == "tree_evolve":
        print(f"tree run {b:6} N={r['n']:9} theta={r['theta']} step={r['step_seconds_mean']*1e3:.2f} ms "
              f"{r['bodies_per_second']:.3e} bodies/s median={r['median_error']:.2e} p99={r['p99_error']:.2e}")
    elif "particle_steps_per_s" in r:
        print(f"{r['bench']:5} {b:6} N={r['n']:9} {r.get('deposit', ''):6} "
              f"{r['seconds_per_step']*1e3:8.3f} ms/step {r['particle_steps_per_s']:.3e} particle-steps/s")
PY
fi
if part treepm; then
    log "TreePM benchmark, both backends, mesh factors ${GPU_CHECK_TREEPM_MESH_FACTORS:-1 2}"
    for backend in cuda opencl; do
        for factor in ${GPU_CHECK_TREEPM_MESH_FACTORS:-1 2}; do
            PARTCL_DEVICE=gpu build-gpu/benchmarks/partcl_bench_tree_pm --backend $backend \
                --side ${GPU_CHECK_TREEPM_SIDES:-64,128,256} --mesh-factor $factor --repeat 3 \
                >>"$OUT/treepm.jsonl" 2>>"$OUT/log.txt"
        done
    done
    python3 - "$OUT/treepm.jsonl" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
for r in (json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")):
    print(f"treepm {r['backend']:6} {r['bodies']:9} N={r['n']:9} mesh={r['mesh']:4} build={r['build_seconds']*1e3:.2f} ms "
          f"walk={r['walk_seconds']*1e3:.2f} ms mesh={r['mesh_seconds']*1e3:.2f} ms "
          f"whole={r['seconds']*1e3:.2f} ms step={r.get('step_seconds', 0)*1e3:.2f} ms")
PY
fi
if part cosmology; then
    # The built-in cosmology at other sizes, z = 49 to 0: diagnostics.csv and the power spectra
    # (snapshots and checkpoints stay behind: they are large).
    log "cosmology runs (GPU_CHECK_COSMOLOGY: side:box:backend ...)"
    for spec in ${GPU_CHECK_COSMOLOGY:-128:100:cuda 128:100:opencl 256:200:cuda}; do
        IFS=: read -r side box backend <<<"$spec"
        name="cosmology-${side}-${box}-${backend}"
        sed -e "s/^side = .*/side = $side/" -e "s/^box = .*/box = $box.0/" -e "s/^frame_every = .*/frame_every = 0/" \
            -e "s/^checkpoint_every = .*/checkpoint_every = 0/" -e "s/^name = .*/name = \"$name\"/" \
            examples/scenarios/cosmology.toml >"/tmp/$name.toml"
        PARTCL_DEVICE=gpu PARTCL_BACKEND=$backend $P run "/tmp/$name.toml" --out "/tmp/$name" --quiet \
            >"$OUT/$name.txt" 2>&1 || echo "cosmology $name failed" | tee -a "$OUT/summary.txt"
        mkdir -p "$OUT/$name" && cp /tmp/$name/*.csv /tmp/$name/*.png "$OUT/$name/" 2>/dev/null
        tail -3 "$OUT/$name.txt" | sed "s/^/$name: /" | tee -a "$OUT/summary.txt"
    done
fi
for backend in cuda opencl; do
    part run || break
    log "default run on the GPU, $backend"
    PARTCL_DEVICE=gpu $P --backend $backend run --out "$OUT/run-$backend" --frame-every 0 2>&1 \
        | tail -4 | tee -a "$OUT/summary.txt"
    rm -rf "$OUT/run-$backend"
done
log "done"
