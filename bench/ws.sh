#!/bin/sh
# bench/ws.sh [BIN] — WebSocket against TCP (issue 15): 200 viewers of one world over WebSocket
# and 200 over TCP, measured in one run of this script with the same vivd build, world, flags and
# duration, for each encoding (tile.zst, vivd's default, and raw, whose 57,600-byte frames are the
# ones libwebsockets may have to copy in part).
#
# For each encoding: one baseline run with a single TCP viewer (the world's own cost: tick,
# render, encode), then ROUNDS rounds of a TCP run and a WebSocket run, their order swapped every
# round so that drift in the machine's load falls on both. Every run gets a fresh vivd (HTTP on
# in every run, so the two transports run the same server), pinned to CPU 0 and the bot to CPU 1.
# Records, per run: vivd's CPU per viewer-frame (Δ user+sys CPU / Δ frames sent in the bot's
# window), tick lateness p50/p99/max and overruns (vivd's stats, cumulative since that vivd
# started), frames received, gaps, viewer lag; for WebSocket runs, the line vivd logs at its stop:
# how many messages lws wrote from the shared buffers and how many of them in part (lws copied the
# unsent rest). Then per encoding the pooled figures of each transport and the ratio WS/TCP, both
# of the whole CPU per viewer-frame and of the marginal one (the baseline's CPU per second
# subtracted: what a viewer-frame costs beyond the world).
# Prints a Markdown block for bench/RESULTS.md; the block is also kept in bench/out/ws.md.
#   BIN             directory holding viv and vivd (default bin)
#   WS_SECONDS      measured seconds per run (default 20)
#   WS_ROUNDS       rounds of TCP + WebSocket per encoding (default 3)
#   WS_VIEWERS      viewers per run (default 200)
#   WS_ENCODINGS    encodings (default "tile.zst raw")
set -eu
secs=${WS_SECONDS:-20}
rounds=${WS_ROUNDS:-3}
viewers=${WS_VIEWERS:-200}
encs=${WS_ENCODINGS:-tile.zst raw}
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_init "${1:-}"
token="ws-bench-player"

# The default log level: vivd's stop line with the WebSocket copy counts is an info line.
vivd_cmd="$bin/vivd --listen 127.0.0.1:0 --http 127.0.0.1:0 --port-file $tmp/port --http-port-file $tmp/hport --world sand:seed=1 --max-clients 5000 --no-record"

# run NAME tcp|ws BOT-FLAGS...: a fresh vivd, the bot over that transport (its JSON report in
# $tmp/NAME.json, vivd's log in $tmp/NAME.log).
run() {
    name=$1
    transport=$2
    shift 2
    start_vivd "$tmp/$name.log" "$tmp/port" "$tmp/hport"
    if [ "$transport" = ws ]; then addr="ws://127.0.0.1:$(cat "$tmp/hport")/ws"; else addr="127.0.0.1:$port"; fi
    bot_json "$name" "$addr" "$@"
    stop_vivd
    echo "$name" >> "$tmp/runs"
}

# vivd's stop line: "websocket: N messages written from the shared buffers, M of them in part
# (libwebsockets copied their unsent rest: at most B bytes)" → "N M B", or "- - -".
ws_copies() {
    sed -n 's/.*websocket: \([0-9]*\) messages written from the shared buffers, \([0-9]*\) of them in part (libwebsockets copied their unsent rest: at most \([0-9]*\) bytes).*/\1 \2 \3/p' \
        "$tmp/$1.log" | tail -n 1 | grep . || echo "- - -"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
: > "$tmp/runs"
for enc in $encs; do
    run "base-$enc" tcp --clients 1 --enc "$enc"
    r=1
    while [ "$r" -le "$rounds" ]; do
        if [ $((r % 2)) -eq 1 ]; then order="tcp ws"; else order="ws tcp"; fi
        for t in $order; do run "$t-$enc-$r" "$t" --clients "$viewers" --enc "$enc"; done
        r=$((r + 1))
    done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)

row() {
    name=$1
    # shellcheck disable=SC2046  # three words: messages, in part, bytes
    set -- $(ws_copies "$name")
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
        "$(echo "$name" | sed 's/-\([0-9]*\)$/ (round \1)/')" \
        "$(field "$name" connections viewers ok)" \
        "$(field "$name" frames per_second)" \
        "$(field "$name" frames gaps)" \
        "$(field "$name" frames lag_p99_ticks)" \
        "$(bytes_per_frame "$name")" \
        "$(server_cells "$name")" \
        "$1 / $2" "$3"
}

# pooled ENC TRANSPORT: "cpu_us frames seconds" summed over that transport's rounds.
pooled() {
    c=0 f=0 s=0
    r=1
    while [ "$r" -le "$rounds" ]; do
        n="$2-$1-$r"
        c=$(awk -v a="$c" -v b="$(field "$n" server cpu_us)" 'BEGIN { printf "%.0f", a + b }')
        f=$(awk -v a="$f" -v b="$(field "$n" server frames_sent)" 'BEGIN { printf "%.0f", a + b }')
        s=$(awk -v a="$s" -v b="$(field "$n" seconds)" 'BEGIN { printf "%.3f", a + b }')
        r=$((r + 1))
    done
    echo "$c $f $s"
}

# summary ENC: the pooled CPU per viewer-frame of each transport, the marginal one (the baseline's
# CPU and frames per second taken away), and the ratios WS/TCP.
summary() {
    enc=$1
    bc=$(field "base-$enc" server cpu_us) bf=$(field "base-$enc" server frames_sent) bs=$(field "base-$enc" seconds)
    # shellcheck disable=SC2046
    awk -v enc="$enc" -v bc="$bc" -v bf="$bf" -v bs="$bs" \
        -v tcp="$(pooled "$enc" tcp)" -v ws="$(pooled "$enc" ws)" -v v="$viewers" 'BEGIN {
        split(tcp, t, " "); split(ws, w, " ")
        pt = t[1] / t[2]; pw = w[1] / w[2]
        # marginal: (CPU/s − base CPU/s) / (frames/s − base frames/s)
        mt = (t[1] / t[3] - bc / bs) / (t[2] / t[3] - bf / bs)
        mw = (w[1] / w[3] - bc / bs) / (w[2] / w[3] - bf / bs)
        printf "| %s | %.3f | %.3f | **%.2f** | %.3f | %.3f | **%.2f** | %.1f | %.0f |\n", enc, pt, pw, pw / pt, mt, mw, mw / mt, bc / bs / 1e4, bf / bs
    }'
}

mkdir -p bench/out
{
    echo "### $(date -u +%Y-%m-%d) — WebSocket against TCP, $viewers viewers each: $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo unknown CPU), $(nproc) cores"
    echo
    echo "Date: $(date -u +%Y-%m-%dT%H:%M:%SZ). Command: \`sh bench/ws.sh $bin\` (WS_SECONDS=$secs WS_ROUNDS=$rounds WS_VIEWERS=$viewers WS_ENCODINGS=\"$encs\"; \`make bench\` runs it)."
    echo "Server: \`${server_pin:+$server_pin }$vivd_cmd\` (a fresh one per run)."
    echo "Bot: \`${bot_pin:+$bot_pin }$bin/viv bot --host ADDR --seconds $secs --json --clients N --enc ENC\`, ADDR 127.0.0.1:PORT (TCP) or ws://127.0.0.1:HTTPPORT/ws (WebSocket)."
    echo "CPU per viewer-frame is Δ(vivd user+sys CPU) / Δ(frames sent) over the bot's window; lateness is vivd's (cumulative since that vivd started: ramp-up included)."
    echo "\"lws msgs / in part\": vivd's stop line, over that vivd's whole life (ramp-up and the final stats included): messages libwebsockets wrote from the shared buffers, and how many of them the kernel took only in part, so that lws copied the rest (at most the bytes given)."
    echo "Load average before and after the runs: $load_before; $load_after (other work on the machine skews every number)."
    echo
    echo "| run | viewers ok | frames/s received | gaps | viewer lag p99 (ticks) | bytes / frame | vivd µs CPU / viewer-frame | of it user | of it sys | vivd CPU % of a core | lateness p50 µs | p99 µs | max µs | overruns | lws msgs / in part | lws copied at most (bytes) |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    while read -r name; do row "$name"; done < "$tmp/runs"
    echo
    echo "Pooled over the rounds (Σ CPU / Σ frames); marginal = (CPU/s − the 1-viewer baseline's CPU/s) / (frames/s − its frames/s):"
    echo
    echo "| encoding | TCP µs / viewer-frame | WebSocket | WS/TCP | TCP marginal µs | WebSocket marginal | WS/TCP marginal | baseline vivd CPU % | baseline frames/s |"
    echo "|---|---|---|---|---|---|---|---|---|"
    for enc in $encs; do summary "$enc"; done
    echo
    echo "Bot CPU (% of a core), by run: $(while read -r name; do printf '%s %s; ' "$name" "$(field "$name" bot_cpu_percent)"; done < "$tmp/runs")"
    warn=$(cat "$tmp"/*.log | grep -c ' warn ' || true)
    if [ "$warn" -gt 0 ]; then
        echo
        echo "vivd warnings: $warn line(s), e.g. \`$(cat "$tmp"/*.log | grep -m1 ' warn ' | sed 's/`//g')\`"
    fi
} | tee bench/out/ws.md
