#!/bin/sh
# The partcl command line on bad input: each case must exit with its status (2 usage, 1 run
# failure), print a message naming the problem, and leave what an earlier run wrote untouched.
#
#   tests/cli.sh PATH/TO/partcl
set -u
partcl=$1
examples=$(cd "$(dirname "$0")/../examples/scenarios" && pwd) || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/partcl-cli.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
failed=0

# expect STATUS PATTERN ARG...: runs partcl ARG..., checks the status and that the output
# matches PATTERN (grep -E).
expect() {
    want=$1 pattern=$2
    shift 2
    output=$("$partcl" "$@" 2>&1)
    got=$?
    if [ "$got" -ne "$want" ] || ! printf '%s\n' "$output" | grep -Eq -- "$pattern"; then
        echo "FAIL: partcl $* -> status $got (want $want), output must match /$pattern/:"
        printf '%s\n' "$output" | sed 's/^/    /'
        failed=1
    else
        echo "ok:   partcl $* -> $got: $(printf '%s' "$output" | tail -n 1)"
    fi
}

# An earlier run's output, which no failing run may destroy.
mkdir out
"$partcl" run kepler --steps 4 --out out --quiet >/dev/null 2>&1 || { echo "FAIL: a good run failed"; exit 1; }
cp out/checkpoint.bin kepler_checkpoint.bin  # the fluid runs below write their own checkpoint.bin
# And an MPS fluid run's (a few hundred steps of the built-in dam break).
"$partcl" run dambreak --end-time 0.005 --out out --quiet >mps.txt 2>&1 || { echo "FAIL: a good MPS run failed"; cat mps.txt; exit 1; }
for f in out/front.csv out/frame_000000.png; do
    [ -s "$f" ] || { echo "FAIL: the MPS run did not write $f"; exit 1; }
done
grep -q '^front x = .*Z = x/a' mps.txt || { echo "FAIL: no MPS summary"; cat mps.txt; exit 1; }
[ "$(head -n 1 out/front.csv)" = "t,T,x,Z" ] || { echo "FAIL: front.csv header"; exit 1; }
# The hydrostatic column, with its progress lines (stderr is not a terminal: one per tenth).
"$partcl" run hydrostatic --end-time 0.01 --out out >hydro.txt 2>&1 || { echo "FAIL: a good hydrostatic run failed"; cat hydro.txt; exit 1; }
[ "$(head -n 1 out/bottom_pressure.csv)" = "t,bottom_pressure,rho_g_h" ] || { echo "FAIL: bottom_pressure.csv header"; exit 1; }
[ "$(wc -l <out/bottom_pressure.csv)" -eq 6 ] || { echo "FAIL: bottom_pressure.csv rows"; cat out/bottom_pressure.csv; exit 1; }
grep -q '^\[#*\.*\] t 0.0100/0.01 s  bottom pressure' hydro.txt || { echo "FAIL: no MPS progress line"; cat hydro.txt; exit 1; }
grep -q '^bottom pressure .* Pa against rho g h .* Pa' hydro.txt || { echo "FAIL: no hydrostatic summary"; cat hydro.txt; exit 1; }
# Resumed from its checkpoint at the end (t = 0.01 s) and run on to 0.02 s in another directory:
# the first rows are the checkpoint's.
"$partcl" run --resume out/checkpoint.bin --end-time 0.02 --out resumed >resume.txt 2>&1 || { echo "FAIL: resuming a fluid run failed"; cat resume.txt; exit 1; }
grep -q 'resumed from out/checkpoint.bin' resume.txt || { echo "FAIL: no resume line"; cat resume.txt; exit 1; }
[ "$(wc -l <resumed/bottom_pressure.csv)" -eq 10 ] || { echo "FAIL: resumed bottom_pressure.csv rows"; cat resumed/bottom_pressure.csv; exit 1; }
[ "$(head -n 6 resumed/bottom_pressure.csv)" = "$(cat out/bottom_pressure.csv)" ] || { echo "FAIL: the resumed rows differ"; exit 1; }
# The PIC plasma built-ins: a short Langmuir run (two plasma periods) and the full two-stream
# run (320 steps, about a second), each with its measurement in the summary.
"$partcl" run langmuir --end-time 13 --out pic >langmuir.txt 2>&1 || { echo "FAIL: a good langmuir run failed"; cat langmuir.txt; exit 1; }
[ "$(head -n 1 pic/diagnostics.csv)" = "t,field_energy,kinetic_energy,total,momentum,mode_sin,mode_cos" ] || { echo "FAIL: diagnostics.csv header"; exit 1; }
[ "$(wc -l <pic/diagnostics.csv)" -eq 132 ] || { echo "FAIL: diagnostics.csv rows"; wc -l pic/diagnostics.csv; exit 1; }
[ -s pic/frame_000120.png ] || { echo "FAIL: no phase-space frame"; exit 1; }
grep -q '^frequency 0\.99[0-9]* against the plasma frequency 1\.00000\|^frequency 1\.00[0-9]* against the plasma frequency 1\.00000' langmuir.txt || { echo "FAIL: no Langmuir frequency within 1%"; cat langmuir.txt; exit 1; }
"$partcl" run two-stream --out pic --quiet >two_stream.txt 2>&1 || { echo "FAIL: a good two-stream run failed"; cat two_stream.txt; exit 1; }
grep -q '^growth rate 0\.3[2-8][0-9]* against linear theory 0\.35355' two_stream.txt || { echo "FAIL: no two-stream growth rate near theory"; cat two_stream.txt; exit 1; }
# A 2-D plasma of two species (the built-in pair-plasma, five steps), resumed from its
# checkpoint to run on: the rows of both parts in one diagnostics.csv.
"$partcl" run pair-plasma --end-time 0.5 --out pair --quiet >pair.txt 2>&1 || { echo "FAIL: a good pair-plasma run failed"; cat pair.txt; exit 1; }
grep -q 'PIC species 2-D, 32768 particles of 2 species on 64^2 cells' pair.txt || { echo "FAIL: no pair-plasma header"; cat pair.txt; exit 1; }
"$partcl" run --resume pair/checkpoint.bin --end-time 1.0 --out pair --quiet >resume.txt 2>&1 || { echo "FAIL: a good PIC resume failed"; cat resume.txt; exit 1; }
grep -q 'resumed from pair/checkpoint.bin at step 5' resume.txt || { echo "FAIL: no resume header"; cat resume.txt; exit 1; }
[ "$(wc -l <pair/diagnostics.csv)" -eq 12 ] || { echo "FAIL: resumed diagnostics.csv rows"; cat pair/diagnostics.csv; exit 1; }
# A cosmological box, its four outputs a step each: snapshots, power spectra and plots: the
# built-in's set-up (examples/scenarios/cosmology.toml) at 32^3 bodies, its 64^3 taking half a
# minute on two cores.
sed 's/^side = 64$/side = 32/' "$examples/cosmology.toml" >cosmology32.toml
"$partcl" run cosmology32.toml --steps 4 --out cosmo --quiet >cosmo.txt 2>&1 || { echo "FAIL: a good cosmology run failed"; cat cosmo.txt; exit 1; }
grep -q '32^3 bodies in a 100 Mpc/h box, 2LPT from z = 49 to z = 0 in 4 steps' cosmo.txt || { echo "FAIL: no cosmology header"; cat cosmo.txt; exit 1; }
for f in snapshot_000000.h5 snapshot_000004.h5 power_000004.csv power_000004.png frame_000004.png; do
  [ -s "cosmo/$f" ] || { echo "FAIL: cosmology wrote no $f"; ls cosmo; exit 1; }
done
before=$(cat out/energy.csv out/checkpoint.bin out/snapshot_000004.h5 out/front.csv out/frame_000000.png pic/diagnostics.csv pic/checkpoint.bin pair/checkpoint.bin | cksum)

cat >unknown_key.toml <<'TOML'
[run]
steps = 10
stepz = 3
TOML
cat >malformed.toml <<'TOML'
[run]
steps = = 10
TOML
cat >nan.toml <<'TOML'
[gravity]
softening = nan
TOML
cat >missing_snapshot.toml <<'TOML'
[bodies]
initial = "snapshot"
snapshot = "no_such_file.h5"
TOML
head -c 1000 out/snapshot_000004.h5 >truncated.h5
cat >truncated_snapshot.toml <<'TOML'
[bodies]
initial = "snapshot"
snapshot = "truncated.h5"
TOML
head -c 100 out/checkpoint.bin >truncated_checkpoint.bin
cat >water_outside.toml <<'TOML'
[scenario]
model = "mps"
[fluid]
water_width = 1.0
TOML
cat >re_small.toml <<'TOML'
[scenario]
model = "mps"
[fluid]
re_ratio = 0.9
TOML
cat >fluid_nan.toml <<'TOML'
[scenario]
model = "mps"
[fluid]
gravity = nan
TOML
cat >plasma_dt.toml <<'TOML'
[scenario]
model = "pic"
[plasma]
dt = 3.0
TOML
cat >plasma_nan.toml <<'TOML'
[scenario]
model = "pic"
[plasma]
length = nan
TOML
cat >plasma_setup.toml <<'TOML'
[scenario]
model = "pic"
[plasma]
setup = "beam"
TOML
cat >fluid_nbody_key.toml <<'TOML'
[scenario]
model = "mps"
[run]
steps = 5
TOML

expect 2 'N = 0|n must|\[bodies\] n' run cube --n 0 --out out
expect 2 "'-5' is not a whole number" run cube --n -5 --out out
expect 2 'softening' run nan.toml --out out
expect 2 'verlet' run --integrator verlet --out out
expect 2 'theta must be in \[0, 1\]' run plummer --gravity tree --theta 2 --out out
expect 2 'not a tree traversal' run plummer --gravity tree --traversal recursive --out out
expect 2 'group_size must be a power of two in \[1, 1024\]' run plummer --gravity tree --group-size 48 --out out
expect 2 'octree.*not a gravity model' run plummer --gravity octree --out out
expect 2 'stepz.*line 3|line 3.*stepz|:3.*stepz' run unknown_key.toml --out out
expect 2 'malformed.toml.*(line )?2' run malformed.toml --out out
expect 2 'no_such_file.h5' run missing_snapshot.toml --out out
expect 2 'truncated.h5' run truncated_snapshot.toml --out out
expect 2 'truncated_checkpoint.bin' run --resume truncated_checkpoint.bin --out out
expect 2 'only --steps' run plummer --resume out/checkpoint.bin --out out
expect 2 'nothing to do' run --resume kepler_checkpoint.bin --out out
mkdir other && printf 'step,time\n1,2\n' >other/energy.csv
expect 2 "holds another run's rows" run --resume kepler_checkpoint.bin --steps 8 --out other
[ "$(cat other/energy.csv)" = "$(printf 'step,time\n1,2')" ] || { echo "FAIL: a refused resume touched other/energy.csv"; failed=1; }
expect 2 'nothing to do \(--end-time or --steps to run on\)' run --resume out/checkpoint.bin --out out
expect 2 'ends at step 9: nothing to do' run --resume out/checkpoint.bin --steps 9 --out out
expect 2 'end_time must be a whole number of steps of \[integrator\] dt' run --resume kepler_checkpoint.bin --end-time 1 --out out
expect 2 'not both' run --resume kepler_checkpoint.bin --end-time 1 --steps 9 --out out
expect 2 'no_such_scenario' run no_such_scenario --out out
expect 2 'half' run kepler --precision half --out out
expect 2 'device filter' run kepler --device 'gpu|' --out out
expect 1 'out of device memory' run cube --n 100000000 --integrator dopri5 --out out
expect 1 'no OpenCL device matches' run kepler --device no_such_device --out out
expect 2 'backend.*(auto|opencl|cuda)' --backend vulkan devices
export PARTCL_BACKEND=vulkan
expect 2 "unknown backend 'vulkan'" devices
unset PARTCL_BACKEND
expect 2 'bogus' run --bogus
expect 2 'water_outside.toml:4.*water_width.*outside the tank' run water_outside.toml --out out
expect 2 're_small.toml:4.*re_ratio.*exceed the spacing' run re_small.toml --out out
expect 2 'fluid_nan.toml:4.*gravity.*finite' run fluid_nan.toml --out out
expect 2 'fluid_nbody_key.toml:4.*\[run\] steps.*nbody' run fluid_nbody_key.toml --out out
expect 2 'end time must be positive \(got -1\)' run dambreak --end-time -1 --out out
expect 2 '--n is for N-body' run dambreak --n 10 --out out
expect 2 '\[run\] end_time must be a whole number of steps.*1.01' run plummer --end-time 1.01 --out out
expect 2 'plasma_dt.toml:4.*\[plasma\] dt.*unstable' run plasma_dt.toml --out out
expect 2 'plasma_nan.toml:4.*\[plasma\] length.*finite' run plasma_nan.toml --out out
expect 2 'plasma_setup.toml:4.*beam.*langmuir, two-stream' run plasma_setup.toml --out out
expect 2 'end time must be positive' run langmuir --end-time -1 --out out
expect 2 'nothing to do.*--end-time' run --resume pair/checkpoint.bin --out pair
expect 2 'nothing to do' run --resume pair/checkpoint.bin --steps 5 --out pair

# Both lengths for every model: --end-time for N-body (a whole number of dt, or dopri5's last
# step shortened onto it), --steps for the fluid and the plasma.
# --profile: the run's commands, the longest printed, every one in profile.csv.
expect 0 '^  dense_gravity +device 0 +[0-9]+ x +[0-9.]+ ms' run plummer --n 64 --steps 5 --out profiled --quiet --profile
[ "$(head -n 1 profiled/profile.csv)" = "rank,device,name,count,seconds" ] &&
    grep -Eq '^0,0,dense_gravity,[1-9][0-9]*,[0-9.e-]+$' profiled/profile.csv ||
    { echo "FAIL: profile.csv"; cat profiled/profile.csv; failed=1; }
expect 0 'steps 0\.\.50, t = 1,' run plummer --n 64 --end-time 1 --out lengths/plummer --quiet
expect 0 'steps 0\.\.[0-9]+, t = 0\.5,' run kepler --integrator dopri5 --end-time 0.5 --out lengths/kepler --quiet
expect 0 ' s in 3 steps,' run hydrostatic --steps 3 --out lengths/hydrostatic --quiet
expect 0 'averaged over t >= 0\.000(2|1999) s' run hydrostatic --steps 3 --out lengths/hydrostatic --quiet
expect 0 't = 0.5 in 5 steps' run langmuir --steps 5 --out lengths/langmuir --quiet
cat >species_lattice.toml <<'TOML'
[scenario]
model = "pic"
[plasma]
setup = "species"
dimensions = 2
mode = [1, 1]
[[plasma.species]]
particles_per_cell = 2
TOML
expect 2 'species_lattice.toml:.*particles_per_cell must be m\^2' run species_lattice.toml --out out

# A CUDA build whose CUDA library is missing: `--backend cuda` says so; `auto` runs on OpenCL.
library=$(ldd "$partcl" | sed -n 's/^[[:space:]]*libpartcl\.so[^ ]* => \([^ ]*\) .*/\1/p')
if [ -n "$library" ] && [ -e "$(dirname "$library")/libpartcl-cuda.so" ]; then
    mkdir lonely
    cp "$library" "lonely/$(basename "$library")"
    saved=${LD_LIBRARY_PATH-}
    export LD_LIBRARY_PATH="$work/lonely"
    expect 1 "CUDA backend's library $work/lonely/libpartcl-cuda.so is missing" --backend cuda devices
    expect 0 'selected by the filter' devices
    export LD_LIBRARY_PATH="$saved"
fi

after=$(cat out/energy.csv out/checkpoint.bin out/snapshot_000004.h5 out/front.csv out/frame_000000.png pic/diagnostics.csv pic/checkpoint.bin pair/checkpoint.bin | cksum)
if [ "$before" != "$after" ]; then
    echo "FAIL: a failing run changed the earlier output"
    failed=1
fi
leftovers=$(find out -name '*.tmp*' | head -n 1)
if [ -n "$leftovers" ]; then
    echo "FAIL: temporary files left behind: $leftovers"
    failed=1
fi
[ "$failed" -eq 0 ] && echo "cli.sh: all cases passed"
exit "$failed"
