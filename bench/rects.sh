#!/bin/sh
# bench/rects.sh [BIN] — big worlds watched through rects (issue 30): vivd hosting a 2048×1024 sand
# demo with 1,000 and 100 bot viewers, each on a 320×180 rect of its own (viv bot --rect, places
# drawn from the viewer's number, the same every run), against a 320×180 sand demo watched whole by
# the same numbers of viewers, in one run.
# Records tick lateness (p50/p99/max, and of the measured window alone), the ticks' time (their
# work, step and fan-out: p50/p99/max in the window), overruns, frames/s each
# viewer received, vivd's CPU per viewer-frame and the bytes of a viewer-frame. Goal (issue 30): at
# 1,000 rect viewers of the big world, no overruns; a rect viewer-frame costs about what a frame of
# the small world costs.
#
# Neither vivd nor the bot is pinned (unlike the other server benchmarks): vivd's tick runs on two
# threads (the render and, for a crowd of rects, the state hash, the tiles and the messages, on its
# pool), and pinned to one core beside its I/O thread it would have one. A fresh vivd a run.
# Prints a Markdown block for bench/RESULTS.md; the block is also kept in bench/out/rects.md.
#   BIN             directory holding viv and vivd (default bin)
#   RECTS_SECONDS   measured seconds per run (default 20)
#   RECTS_VIEWERS   the larger number of viewers (default 1000; the smaller is a tenth)
set -eu
secs=${RECTS_SECONDS:-20}
many=${RECTS_VIEWERS:-1000}
few=$((many / 10))
[ "$few" -ge 1 ] || few=1
# shellcheck source=bench/lib.sh disable=SC2034,SC2154  # token and vivd_cmd go to lib.sh; bin, tmp, port come from it
. "$(dirname "$0")/lib.sh"
bench_init "${1:-}"
server_pin="" bot_pin=""
token="rects-bench-player"

big="sand:seed=1:w=2048,h=1024,scene=demo"
small="sand:seed=1:w=320,h=180,scene=demo"

# One run: a fresh vivd hosting WORLD, the bot with the given flags (its report in $tmp/NAME.json).
run() {
    name=$1
    world=$2
    shift 2
    vivd_cmd="$bin/vivd --listen 127.0.0.1:0 --no-http --port-file $tmp/port --world $world --quiet --max-clients 5000 --no-record"
    start_vivd "$tmp/vivd.log" "$tmp/port"
    bot_json "$name" "127.0.0.1:$port" "$@"
    stop_vivd
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
run bigmany "$big" --clients "$many" --rect 320x180
run bigfew "$big" --clients "$few" --rect 320x180
run smallmany "$small" --clients "$many"
run smallfew "$small" --clients "$few"
# The rect frames checked, hash for hash, by a tenth of the viewers (decoding costs the bot CPU,
# so not in the timed rows above).
run bigverify "$big" --clients "$few" --rect 320x180 --verify "$few"

ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "-" && b != "-") printf "%.2f\n", a / b; else print "-" }'
}

row() {
    name=$1
    label=$2
    printf '| %s | %s | %s | %s | %s | %s | %s / %s / %s | %s / %s / %s | %s / %s / %s | %s | %s |\n' "$label" \
        "$(field "$name" connections viewers ok)" \
        "$(field "$name" frames per_viewer_per_second)" \
        "$(bytes_per_frame "$name")" \
        "$(field "$name" server cpu_us_per_viewer_frame)" \
        "$(field "$name" server cpu_percent)" \
        "$(field "$name" server world late_p50_us)" "$(field "$name" server world late_p99_us)" \
        "$(field "$name" server world late_max_us)" \
        "$(field "$name" server world window_late_p50_us)" "$(field "$name" server world window_late_p99_us)" \
        "$(field "$name" server world window_late_max_us)" \
        "$(field "$name" server world window_work_p50_us)" "$(field "$name" server world window_work_p99_us)" \
        "$(field "$name" server world window_work_max_us)" \
        "$(field "$name" server world overruns)" \
        "$(field "$name" server world ticks)"
}

mkdir -p bench/out
{
    echo "### $(date -u +%Y-%m-%d) — rects of a big world: $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo unknown CPU), $(nproc) cores"
    echo
    echo "Date: $(date -u +%Y-%m-%dT%H:%M:%SZ). Command: \`sh bench/rects.sh\` (make bench). Server: \`${server_pin:+$server_pin }$bin/vivd --listen 127.0.0.1:0 --no-http --world WORLD --quiet --max-clients 5000 --no-record\`,"
    echo "a fresh one a run; WORLD is \`$big\` (big) or \`$small\` (small)."
    echo "Bot: \`${bot_pin:+$bot_pin }$bin/viv bot --seconds $secs --json\` plus the flags in the first column."
    echo "Lateness from vivd's stats (µs): cumulative since that vivd started, and of the measured window alone;"
    echo "a tick's time (µs): its work, from its start to the end of its fan-out, in the window (the p99 against 16,667 at 60 Hz)."
    echo "Load average before the runs: $load_before (other work on the machine skews every number)."
    echo
    echo "| world, bot flags | viewers ok | frames/s per viewer | bytes / viewer-frame | vivd µs CPU / viewer-frame | vivd CPU % of a core | lateness p50 / p99 / max | in the window: p50 / p99 / max | tick time in the window: p50 / p99 / max | overruns | ticks |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    row bigmany "big, --clients $many --rect 320x180"
    row bigfew "big, --clients $few --rect 320x180"
    row smallmany "small, --clients $many"
    row smallfew "small, --clients $few"
    echo
    echo "Rect against small world, at $many viewers: bytes per viewer-frame $(ratio "$(bytes_per_frame bigmany)" "$(bytes_per_frame smallmany)")×,"
    echo "vivd CPU per viewer-frame $(ratio "$(field bigmany server cpu_us_per_viewer_frame)" "$(field smallmany server cpu_us_per_viewer_frame)")×,"
    echo "lateness p99 in the window $(field bigmany server world window_late_p99_us) µs against $(field smallmany server world window_late_p99_us) µs,"
    echo "tick time p99 in the window $(field bigmany server world window_work_p99_us) µs against $(field smallmany server world window_work_p99_us) µs;"
    echo "at $few viewers: bytes $(ratio "$(bytes_per_frame bigfew)" "$(bytes_per_frame smallfew)")×, CPU $(ratio "$(field bigfew server cpu_us_per_viewer_frame)" "$(field smallfew server cpu_us_per_viewer_frame)")×."
    echo "Frames checked (--verify $few, $few rect viewers of the big world): $(field bigverify verify frames) frames, $(field bigverify verify mismatches) hash mismatches, $(field bigverify verify errors) errors."
    echo "Bot CPU (% of a core), by row: $(field bigmany bot_cpu_percent), $(field bigfew bot_cpu_percent), $(field smallmany bot_cpu_percent), $(field smallfew bot_cpu_percent)."
} | tee bench/out/rects.md
