#!/bin/sh
# The partcl command line on bad input: each case must exit with its status (2 usage, 1 run
# failure), print a message naming the problem, and leave what an earlier run wrote untouched.
#
#   tests/cli.sh PATH/TO/partcl
set -u
partcl=$1
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
before=$(cat out/energy.csv out/checkpoint.bin out/snapshot_000004.h5 | cksum)

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

expect 2 'N = 0|n must|\[bodies\] n' run cube --n 0 --out out
expect 2 'softening' run nan.toml --out out
expect 2 'verlet' run --integrator verlet --out out
expect 2 'theta must be in \[0, 1\]' run plummer --gravity tree --theta 2 --out out
expect 2 'not a tree traversal' run plummer --gravity tree --traversal recursive --out out
expect 2 'octree.*not a gravity model' run plummer --gravity octree --out out
expect 2 'stepz.*line 3|line 3.*stepz|:3.*stepz' run unknown_key.toml --out out
expect 2 'malformed.toml.*(line )?2' run malformed.toml --out out
expect 2 'no_such_file.h5' run missing_snapshot.toml --out out
expect 2 'truncated.h5' run truncated_snapshot.toml --out out
expect 2 'truncated_checkpoint.bin' run --resume truncated_checkpoint.bin --out out
expect 2 'only --steps' run plummer --resume out/checkpoint.bin --out out
expect 2 'nothing to do' run --resume out/checkpoint.bin --out out
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

after=$(cat out/energy.csv out/checkpoint.bin out/snapshot_000004.h5 | cksum)
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
