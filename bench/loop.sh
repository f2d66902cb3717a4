#!/bin/sh
# bench/loop.sh [BIN] — nothing slow on the loop (issue 17): vivd streams the sand demo (world 1)
# to one viewer while an admin creates CREATES 640×480 palette-cycling worlds one after another
# (each ~0.1 s of painting at -O2; closed once created), then, with a fresh vivd, the same
# length of streaming without creates (the control). World 1's lateness p50/p99/max, overruns
# and skipped are vivd's own (its stats), cumulative since that vivd started. Goal: lateness p99
# under 2 ms while the creates run.
#   BIN             directory holding vivd (default bin)
#   BENCH_LOOP      the bench_loop client (default build/default/bench_loop)
#   LOOP_CREATES    creates per run (default 50)
#   LOOP_PARAMS     the created worlds' params (default w=640,h=480,scene=fire)
# Prints a Markdown block for bench/RESULTS.md, also kept in bench/out/loop.md. vivd is not
# pinned: the worker that builds the world runs beside the loop, on the other core.
set -eu
client=${BENCH_LOOP:-build/default/bench_loop}
creates=${LOOP_CREATES:-50}
params=${LOOP_PARAMS:-w=640,h=480,scene=fire}
token="loop-bench-admin"
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_init "${1:-}"
if [ ! -x "$client" ]; then
    echo "loop.sh: $client not found; build with: make build/default/bench_loop" >&2
    exit 1
fi
server_pin=""        # not pinned: the worker that builds the world runs beside the loop
vivd_env="VIVD_ADMIN_TOKEN=$token"
vivd_cmd="$bin/vivd --listen 127.0.0.1:0 --no-http --port-file $tmp/port --world sand:seed=1 --quiet --no-record"
val() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
start_vivd "$tmp/vivd.log" "$tmp/port"
with=$("$client" "127.0.0.1:$port" "$token" "$creates" cycle "$params")
stop_vivd
start_vivd "$tmp/vivd.log" "$tmp/port"
without=$(BENCH_LOOP_SECONDS=$(val "$with" window_s) "$client" "127.0.0.1:$port" "$token" 0 cycle "$params")
stop_vivd

row() {
    printf '| %s | %s | %s | %s / %s / %s | %s | %s | %s | %s |\n' "$1" "$(val "$2" creates)" \
        "$(val "$2" window_s)" "$(val "$2" create_ms_min)" "$(val "$2" create_ms_median)" \
        "$(val "$2" create_ms_max)" "$(val "$2" ticks)" \
        "$(val "$2" late_p50_us) / $(val "$2" late_p99_us) / $(val "$2" late_max_us)" \
        "$(val "$2" overruns)" "$(val "$2" skipped)"
}
mkdir -p bench/out
{
    echo "### $(date -u +%Y-%m-%d) — nothing slow on the loop: $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo unknown CPU), $(nproc) cores"
    echo
    echo "Date: $(date -u +%Y-%m-%dT%H:%M:%SZ). Server: \`$vivd_cmd\` (a fresh one per row)."
    echo "Client: \`$client 127.0.0.1:PORT TOKEN $creates cycle $params\` (sent one after another, each closed"
    echo "once created), then the control: the same length of streaming with no create."
    echo "Lateness of world 1 (the sand demo, 60 Hz, one viewer) is vivd's own, cumulative since that"
    echo "vivd started (one second of streaming before the window included)."
    echo "Load average before the runs: $load_before (other work on the machine skews every number)."
    echo
    echo "| run | creates | window s | create ms min / median / max (send to created) | world 1 ticks | lateness p50 / p99 / max µs | overruns | skipped |"
    echo "|---|---|---|---|---|---|---|---|"
    row "creates" "$with"
    row "control" "$without"
} | tee bench/out/loop.md
