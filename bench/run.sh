#!/bin/sh
# make bench: run every benchmark and print Markdown blocks for bench/RESULTS.md (machine, command,
# date, numbers). Each block is also kept in bench/out/.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/default}
BIN=${BIN:-bin}
mkdir -p bench/out
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"
machine="$(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo unknown CPU), $(nproc) cores"
# Sand (issues 2 and 17): not pinned, since the 2-worker cases need both cores. With the baseline
# (bench_sand_base: the step before the strip passes, built from git by make bench), the
# single-threaded step is compared with it in the same run, in ticks/s and, deterministically, in
# instructions (callgrind, counting sim_world_step only).
base=""
[ -x "$BUILD/bench_sand_base" ] && base="--baseline $BUILD/bench_sand_base"
{
    echo "### $(date -u +%Y-%m-%d) — sand world ticks/s: $machine"
    echo
    echo "Command: \`make bench\` (bench/run.sh: \`$BUILD/bench_sand $base\`), compiler: $(${CC:-cc} --version | head -1)"
    echo
    # shellcheck disable=SC2086
    "$BUILD/bench_sand" $base
    if [ -n "$base" ] && command -v valgrind >/dev/null 2>&1; then
        echo
        echo "Instructions in sim_world_step, baseline against now (\`valgrind --tool=callgrind --toggle-collect=sim_world_step BIN --case CASE --quick\`; the whole case, warm-up included):"
        echo
        echo "| case | baseline | now | now / baseline |"
        echo "|---|---:|---:|---:|"
        for c in bench-first demo; do
            ib=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=sim_world_step \
                "$BUILD/bench_sand_base" --case $c --quick 2>&1 | sed -n 's/.*Collected : *//p')
            in=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=sim_world_step \
                "$BUILD/bench_sand" --case $c --quick 2>&1 | sed -n 's/.*Collected : *//p')
            echo "| $c | $ib | $in | $(awk -v a="$ib" -v b="$in" 'BEGIN { printf "%.3f", b / a }') |"
        done
    fi
} | tee bench/out/sand.md
echo
# Big sand worlds (issue 30): 2048×1024 and 4096×2048 against 320×180 in the same run, as vivd
# ticks a world (step, render, both hashes); not pinned, the 2-worker cases need both cores.
{
    echo "### $(date -u +%Y-%m-%d) — big sand worlds: ticks/s and cells/s against 320×180: $machine"
    echo
    echo "Command: \`make bench\` (bench/run.sh: \`$BUILD/bench_big\`), compiler: $(${CC:-cc} --version | head -1)."
    echo "Load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    "$BUILD/bench_big"
} | tee bench/out/big.md
echo
# Recording size (issue 32): bytes a world-hour of every demo world, schema 3's rows beside
# schema 4's blocks and deltas, and the big sand world; about 15 minutes.
{
    echo "### $(date -u +%Y-%m-%d) — bytes a world-hour of recording, both formats: $machine"
    echo
    echo "Command: \`make bench\` (bench/run.sh: \`sh bench/record_size.sh $BIN\`)."
    echo
    sh bench/record_size.sh "$BIN"
} | tee bench/out/record_size.md
echo
{
    echo "### $(date -u +%Y-%m-%d) — terrarium ticks/s: $machine"
    echo
    echo "Command: \`make bench\` (bench/run.sh: \`$pin $BUILD/bench_terrarium\`), compiler: $(${CC:-cc} --version | head -1)"
    echo
    $pin "$BUILD/bench_terrarium"
} | tee bench/out/terrarium.md
echo
{
    echo "### $(date -u +%Y-%m-%d) — fruit-merge ticks/s: $machine"
    echo
    echo "Command: \`make bench\` (bench/run.sh: \`$pin $BUILD/bench_merge\`), compiler: $(${CC:-cc} --version | head -1)"
    echo
    $pin "$BUILD/bench_merge"
} | tee bench/out/merge.md
echo
{
    echo "### $(date -u +%Y-%m-%d) — every world in WebAssembly under Node beside native: $machine"
    echo
    echo "Command: \`make bench\` (bench/run.sh: \`$pin node bench/wasm.mjs $BUILD\`: bin/vivarium.wasm through"
    echo "clients/web/sim.js, and $BUILD/bench_ticks for the same loop natively), compiler: $(${CC:-cc} --version | head -1),"
    echo "wasm: $(clang --version | head -1) --target=wasm32-wasi"
    echo
    BIN=$BIN $pin node bench/wasm.mjs "$BUILD"
} | tee bench/out/wasm.md
echo
{
    echo "### $(date -u +%Y-%m-%d) — the page verifies a recording in Chromium, as a multiple of real time: $machine"
    echo
    echo "Command: \`make bench\` (bench/run.sh: \`BIN=$BIN node bench/page_verify.mjs 60\`: bin/vivd --play, the page in"
    echo "Debian's Chromium through playwright-core, window.viv.verify; not pinned: Chromium and vivd need both cores)"
    echo
    BIN=$BIN node bench/page_verify.mjs 60
} | tee bench/out/page_verify.md
echo
{
    echo "### $(date -u +%Y-%m-%d) — garden ticks/s: $machine"
    echo
    echo "Command: \`make bench\` (bench/run.sh: \`$pin $BUILD/bench_garden\`), compiler: $(${CC:-cc} --version | head -1)"
    echo
    $pin "$BUILD/bench_garden"
} | tee bench/out/garden.md
echo
{
    echo "### $(date -u +%Y-%m-%d) — bytes per frame, 60 s of each demo world: $machine"
    echo
    echo "Command: \`make bench\` (bench/run.sh: \`$pin $BUILD/bench_bytes --seconds 60\`)"
    echo
    $pin "$BUILD/bench_bytes" --seconds 60
} | tee bench/out/bytes.md
echo
{
    echo "### $(date -u +%Y-%m-%d) — palette cycling: bytes per frame and ticks/s: $machine"
    echo
    echo "Command: \`make bench\` (bench/run.sh: \`$pin $BUILD/bench_cycle --seconds 60\`)"
    echo
    $pin "$BUILD/bench_cycle" --seconds 60
} | tee bench/out/cycle.md
echo
{
    echo "### $(date -u +%Y-%m-%d) — tile codec: $machine"
    echo
    echo "Command: \`make bench\` (bench/run.sh: \`$pin $BUILD/bench_codec --quick\`)"
    echo
    $pin "$BUILD/bench_codec" --quick
} | tee bench/out/codec.md
echo
{
    echo "### $(date -u +%Y-%m-%d) — verify speed: $machine"
    echo
    echo "Command: \`make bench\` (bench/run.sh: \`$BUILD/bench_verify\`, not pinned: verify uses both cores)."
    echo "Load average before the run: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min), after: see below."
    echo
    "$BUILD/bench_verify"
    echo
    echo "Load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee bench/out/verify.md
echo
sh bench/record.sh "$BIN"
echo
FLOOR="$BUILD/floor" sh bench/fanout.sh "$BIN"
echo
{
    echo "### $(date -u +%Y-%m-%d) — the fan-out of a big world to 1,000 rects, without the network: $machine"
    echo
    echo "Command: \`make bench\` (bench/run.sh: \`$BUILD/bench_fanout\`), compiler: $(${CC:-cc} --version | head -1)."
    echo "Load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    "$BUILD/bench_fanout"
} | tee bench/out/fanout_rects.md
echo
sh bench/rects.sh "$BIN"
echo
sh bench/ws.sh "$BIN"
echo
sh bench/cluster.sh "$BIN"
echo
BENCH_LOOP="$BUILD/bench_loop" sh bench/loop.sh "$BIN"
echo
{
    echo "### $(date -u +%Y-%m-%d) — GIF export against gifsicle -O3: $machine"
    echo
    echo "Command: \`make bench\` (bench/run.sh: \`sh bench/gif.sh $BIN\`), $(gifsicle --version | head -1)"
    echo
    sh bench/gif.sh "$BIN"
} | tee bench/out/gif.md
echo
{
    echo "### $(date -u +%Y-%m-%d) — animated WebP export against our GIF and gif2webp: $machine"
    echo
    echo "Command: \`make bench\` (bench/run.sh: \`sh bench/webp.sh $BIN\`), libwebp $(dpkg-query -W -f='${Version}' libwebp-dev 2>/dev/null || echo '?')"
    echo
    sh bench/webp.sh "$BIN"
} | tee bench/out/webp.md
