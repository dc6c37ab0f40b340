#!/bin/sh
# Runs a command under Oclgrind with every checker on and fails on any diagnostic:
#
#   tests/oclgrind.sh COMMAND [ARG]...
#   e.g. PARTCL_DEVICE=all PARTCL_CACHE=off tests/oclgrind.sh build/tests/partcl_tests -ts=oclgrind
#
# Oclgrind 21.10 has no "exit non-zero on error" switch, so this script collects what it
# reports and decides: kernel diagnostics (invalid access, data race, uninitialized value) go to
# the --log file, API errors found by --check-api go to stderr. The run fails when the log is
# not empty, when stderr holds an Oclgrind report, or when the command itself fails.
# OCLGRIND names the oclgrind program (default: oclgrind on PATH).
#
# The command runs with tests/oclgrind_host_stores.c preloaded ahead of Oclgrind's runtime,
# without which the uninitialized-value checker's record of global memory goes wrong (that
# file says how). PARTCL_OCLGRIND_PRELOAD names it built (the tests' target
# partcl_oclgrind_host_stores); without it, this script builds it with cc.
set -u

if [ $# -eq 0 ]; then
    echo "usage: $0 COMMAND [ARG]..." >&2
    exit 2
fi
oclgrind=${OCLGRIND:-oclgrind}
if ! command -v "$oclgrind" >/dev/null 2>&1; then
    echo "$0: '$oclgrind' not found (Debian: apt-get install oclgrind)" >&2
    exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/partcl-oclgrind.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM

preload=${PARTCL_OCLGRIND_PRELOAD:-}
if [ -z "$preload" ]; then
    preload="$work/oclgrind_host_stores.so"
    if ! ${CC:-cc} -shared -fPIC -O1 -o "$preload" "$(dirname "$0")/oclgrind_host_stores.c" -lOpenCL; then
        echo "$0: could not build $(dirname "$0")/oclgrind_host_stores.c (needs cc and the OpenCL headers)" >&2
        exit 2
    fi
fi
# Oclgrind puts its runtime first in LD_PRELOAD; the shell it starts puts this library before it.
"$oclgrind" --data-races --uninitialized --check-api --log "$work/log" \
    sh -c 'LD_PRELOAD="$0:$LD_PRELOAD" exec "$@"' "$preload" "$@" 2>"$work/stderr"
status=$?
cat "$work/stderr" >&2

failed=0
if [ -s "$work/log" ]; then
    echo "oclgrind.sh: Oclgrind reported diagnostics:"
    cat "$work/log"
    failed=1
fi
if grep -q "Oclgrind - \|Oclgrind: " "$work/stderr"; then
    echo "oclgrind.sh: Oclgrind reported errors on stderr (see above)"
    failed=1
fi
if [ "$status" -ne 0 ]; then
    echo "oclgrind.sh: the command exited with status $status"
    failed=1
fi
if [ "$failed" -ne 0 ]; then
    echo "oclgrind.sh: FAILED: $*"
    exit 1
fi
echo "oclgrind.sh: no diagnostics"
exit 0
