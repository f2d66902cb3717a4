#!/bin/sh
# bench/fanout.sh [BIN] — the fan-out benchmark: 1,000 viewers of one world at its rate on
# loopback (viv bot), with 100 viewers for comparison, and 1,000 inputs/s on top (from one player,
# the default, and from four).
# Records vivd's CPU time per viewer-frame, tick lateness p50/p99/max and overruns. Goal: every
# tick on time, and at most 2 µs of server CPU per viewer-frame.
#
# vivd runs pinned to CPU 0 and the bot to CPU 1 (taskset, when there is one). Each run gets a
# fresh vivd, so lateness (cumulative in vivd's stats) covers that run's ramp-up and window only.
# Prints a Markdown block for bench/RESULTS.md; the block is also kept in bench/out/fanout.md.
#   BIN       directory holding viv and vivd (default bin)
#   FANOUT_SECONDS  measured seconds per run (default 20)
set -eu
secs=${FANOUT_SECONDS:-20}
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_init "${1:-}"
token="fanout-bench-player"

vivd_cmd="$bin/vivd --listen 127.0.0.1:0 --no-http --port-file $tmp/port --world sand:seed=1 --quiet --max-clients 5000 --no-record"

# One run: a fresh vivd, the bot with the given flags (its JSON report kept in $tmp/$1.json).
run() {
    name=$1
    shift
    start_vivd "$tmp/vivd.log" "$tmp/port"
    bot_json "$name" "127.0.0.1:$port" "$@"
    stop_vivd
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
io_default=$(n=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1); if [ "$n" -le 1 ]; then echo 0; elif [ $((n / 2)) -gt 8 ]; then echo 8; else echo $((n / 2)); fi)
run v1000 --clients 1000
vivd_extra="--io-threads 0"
run v1000io0 --clients 1000
vivd_extra=""
run v100 --clients 100
run v1000in --clients 1000 --inputs-per-sec 1000 --token "$token"
run v1000in4 --clients 1000 --inputs-per-sec 1000 --players 4 --token "$token"

row() {
    name=$1
    label=$2
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$label" \
        "$(field "$name" connections viewers ok)" \
        "$(field "$name" frames per_second)" \
        "$(field "$name" frames gaps)" \
        "$(field "$name" frames lag_p99_ticks)" \
        "$(server_cells "$name")" \
        "$(field "$name" server world window_late_p50_us) / $(field "$name" server world window_late_p99_us) / $(field "$name" server world window_late_max_us)"
}

irow() {
    name=$1
    label=$2
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" \
        "$(field "$name" inputs sent)" \
        "$(field "$name" inputs acks)" \
        "$(field "$name" inputs refused) $(sed -n 's/.*"inputs":{[^}]*"errors":\({[^}]*}\).*/\1/p' "$tmp/$name.json")" \
        "$(field "$name" connections players closed_by_server)" \
        "$(field "$name" inputs ack_latency_us p50)" \
        "$(field "$name" inputs ack_latency_us p99)" \
        "$(field "$name" inputs ack_latency_us max)"
}

# Marginal cost of a viewer-frame: the difference between the 1,000- and 100-viewer runs divided
# by the difference in frames, which removes the per-tick simulation cost both runs share.
marginal() {
    awk -v c1="$(field v1000 server cpu_us)" -v f1="$(field v1000 server frames_sent)" \
        -v c0="$(field v100 server cpu_us)" -v f0="$(field v100 server frames_sent)" \
        'BEGIN { if (f1 - f0 > 0) printf "%.3f\n", (c1 - c0) / (f1 - f0); else print "-" }'
}

# The loopback TCP floor, measured now: the kernel's cost to a sender of one message of the same
# size to each of 1,000 connections at 60 Hz with a reader draining them (bench/floor.c).
floor_line="(bench/floor not built)"
if [ -x "${FLOOR:-build/default/floor}" ]; then
    fb=$(bytes_per_frame v1000)
    floor_line=$("${FLOOR:-build/default/floor}" 1000 "${fb:-5000}" 60 10 2>&1 || true)
fi
floor_us=$(printf '%s\n' "$floor_line" | sed -n 's/.*per message \([0-9.]*\) µs.*/\1/p')

mkdir -p bench/out
{
    echo "### $(date -u +%Y-%m-%d) — fan-out: $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo unknown CPU), $(nproc) cores"
    echo
    echo "Date: $(date -u +%Y-%m-%dT%H:%M:%SZ). Server: \`${server_pin:+$server_pin }$vivd_cmd\` (a fresh one per run;"
    echo "with its default --io-threads, $io_default here: the I/O threads are pinned with the loop, to the same CPU, unless the row says --io-threads 0)."
    echo "Bot: \`${bot_pin:+$bot_pin }$bin/viv bot --host 127.0.0.1:PORT --seconds $secs --json\` plus the flags in the first column."
    echo "CPU per viewer-frame is Δ(vivd user+sys CPU) / Δ(frames sent) over the measured window;"
    echo "lateness is from vivd's stats: cumulative since that vivd started (ramp-up included), and of the"
    echo "measured window alone (from the two stats replies' lateness histograms, 0.1 ms buckets)."
    echo "Load average before the runs: $load_before (other work on the machine skews every number)."
    echo
    echo "| bot flags | viewers ok | frames/s received | gaps | viewer lag p99 (ticks) | vivd µs CPU / viewer-frame | of it user | of it sys | vivd CPU % of a core | lateness p50 µs | p99 µs | max µs | overruns | in the window alone: p50 / p99 / max µs |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    row v1000 "--clients 1000"
    row v1000io0 "--clients 1000, vivd --io-threads 0"
    row v100 "--clients 100"
    row v1000in "--clients 1000 --inputs-per-sec 1000"
    row v1000in4 "--clients 1000 --inputs-per-sec 1000 --players 4"
    echo
    echo "| bot flags | inputs sent | acked | refused | players closed by vivd | ack latency p50 µs | p99 µs | max µs |"
    echo "|---|---|---|---|---|---|---|---|"
    irow v1000in "--clients 1000 --inputs-per-sec 1000"
    irow v1000in4 "--clients 1000 --inputs-per-sec 1000 --players 4"
    echo
    echo "Per viewer-frame at 1,000 vs 100 viewers: $(field v1000 server cpu_us_per_viewer_frame) / $(field v100 server cpu_us_per_viewer_frame) µs;"
    echo "at 1,000 viewers with the writes on I/O threads vs on the loop (--io-threads 0): $(field v1000 server cpu_us_per_viewer_frame) / $(field v1000io0 server cpu_us_per_viewer_frame) µs, overruns $(field v1000 server world overruns) / $(field v1000io0 server world overruns), lateness p99 in the window $(field v1000 server world window_late_p99_us) / $(field v1000io0 server world window_late_p99_us) µs;"
    echo "marginal cost of a viewer-frame (Δ CPU / Δ frames between the two runs): $(marginal) µs."
    echo "Bytes sent per viewer-frame: $(bytes_per_frame v1000) at 1,000 viewers, $(bytes_per_frame v100) at 100."
    echo "Loopback TCP floor in the same run: $floor_line."
    if [ -n "$floor_us" ]; then
        echo "vivd at 1,000 viewers over the floor: $(awk -v v="$(field v1000 server cpu_us_per_viewer_frame)" -v f="$floor_us" 'BEGIN { printf "%.2fx, i.e. %.2f µs per viewer-frame of vivd'"'"'s own\n", v / f, v - f }')"
    fi
    echo "Bot CPU (% of a core), by row: $(field v1000 bot_cpu_percent), $(field v1000io0 bot_cpu_percent), $(field v100 bot_cpu_percent), $(field v1000in bot_cpu_percent), $(field v1000in4 bot_cpu_percent)."
    echo "Stats round trip on the control connection (vivd's responsiveness), mean/max µs, by row: $(field v1000 stats_rtt_us mean)/$(field v1000 stats_rtt_us max), $(field v1000io0 stats_rtt_us mean)/$(field v1000io0 stats_rtt_us max), $(field v100 stats_rtt_us mean)/$(field v100 stats_rtt_us max), $(field v1000in stats_rtt_us mean)/$(field v1000in stats_rtt_us max), $(field v1000in4 stats_rtt_us mean)/$(field v1000in4 stats_rtt_us max)."
    if [ -s "$tmp/vivd.log" ]; then
        echo
        echo "vivd warnings: $(grep -c . "$tmp/vivd.log") line(s), e.g. \`$(head -n 1 "$tmp/vivd.log" | sed 's/`//g')\`"
    fi
} | tee bench/out/fanout.md
