#!/bin/sh
# make bench: run every benchmark on one core and print a Markdown block for bench/RESULTS.md
# (machine, command, date, numbers). The block is also kept in bench/out/latest.md.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/default}
mkdir -p bench/out
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"
{
    echo "### $(date -u +%Y-%m-%d) — $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo unknown CPU), $(nproc) cores"
    echo
    echo "Command: \`make bench\` (bench/run.sh: \`$pin $BUILD/bench_sand\`), compiler: $(${CC:-cc} --version | head -1)"
    echo
    $pin "$BUILD/bench_sand" "$@"
} | tee bench/out/latest.md
