#!/bin/sh
# bench/record.sh [BIN] — recording overhead and replay file size (issue 4).
#   1. Tick lateness and overruns of vivd with and without recording, under `viv bot` input load
#      of 10,000 inputs/s (8 players; a player may send 32 inputs per tick). Goal: no overruns.
#   2. Replay file size per hour of each demo world, from a measured run of `viv sim --record`.
# Prints a Markdown block for bench/RESULTS.md (also kept in bench/out/record.md).
set -eu
bin=${1:-}
case $bin in "") ;; /*) ;; *) bin="$(pwd)/$bin" ;; esac
cd "$(dirname "$0")/.."
bin=${bin:-bin}
secs=${RECORD_SECONDS:-20}
tmp=$(mktemp -d /tmp/vivrecord.XXXXXX)
pid=""
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
server_pin="" bot_pin=""
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
    server_pin="taskset -c 0"
    bot_pin="taskset -c 1"
fi
token=record-bench-player

# run NAME VIVD-ARGS...: start vivd, load it, keep the bot's JSON in $tmp/NAME.json
run() {
    name=$1; shift
    rm -f "$tmp/port"
    VIVD_PLAYER_TOKEN=$token $server_pin "$bin/vivd" --listen 127.0.0.1:0 --no-http --port-file "$tmp/port" \
        --world sand:seed=1 --quiet "$@" 2>>"$tmp/vivd.log" &
    pid=$!
    i=0
    while [ ! -s "$tmp/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    port=$(cat "$tmp/port")
    $bot_pin "$bin/viv" bot --host "127.0.0.1:$port" --clients 10 --players 8 --token "$token" \
        --inputs-per-sec 10000 --seconds "$secs" --json > "$tmp/$name.json"
    kill -TERM "$pid"
    wait "$pid" || true
    pid=""
}

field() {   # field FILE key... — a number from the bot's JSON (nested keys, first match)
    f=$1; shift
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for k in sys.argv[2:]: d=d[k]
print(d)' "$f" "$@" 2>/dev/null || echo "-"
}

run norec --no-record
run rec --db "$tmp/bench.db"
rec_size=$(stat -c %s "$tmp/bench.db")

# File size per hour: 5 minutes of world time per demo world, headless, then scaled.
sizes=""
for kind in $("$bin/viv" --help | sed -n 's/^world kinds: *//p'); do
    rm -f "$tmp/size.db"*
    hz_ticks=$(( 300 * 60 ))
    case $kind in terrarium) hz_ticks=$(( 300 * 40 )) ;; esac
    "$bin/viv" sim --world "$kind" --ticks "$hz_ticks" --record "$tmp/size.db" 2>/dev/null >/dev/null
    sqlite3 "$tmp/size.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
    b=$(stat -c %s "$tmp/size.db")
    sizes="$sizes| $kind | $hz_ticks | $b | $(awk -v b="$b" 'BEGIN { printf "%.1f", b * 12 / 1048576 }') |
"
done

mkdir -p bench/out
{
    echo "### $(date -u +%Y-%m-%d) — recording: $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores"
    echo
    echo "Command: \`sh bench/record.sh\` (vivd \`--world sand:seed=1\` pinned to CPU 0; \`viv bot --clients 10 --players 8 --inputs-per-sec 10000 --seconds $secs\` on CPU 1)."
    echo
    echo "| vivd | inputs sent | acked | refused | ack p50 µs | ack p99 µs | lateness p50 µs | p99 µs | max µs | overruns |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    for n in norec rec; do
        label="--no-record"; [ "$n" = rec ] && label="recording (--db, durability normal)"
        echo "| $label | $(field "$tmp/$n.json" inputs sent) | $(field "$tmp/$n.json" inputs acks) | $(field "$tmp/$n.json" inputs refused) | $(field "$tmp/$n.json" inputs ack_latency_us p50) | $(field "$tmp/$n.json" inputs ack_latency_us p99) | $(field "$tmp/$n.json" server world late_p50_us) | $(field "$tmp/$n.json" server world late_p99_us) | $(field "$tmp/$n.json" server world late_max_us) | $(field "$tmp/$n.json" server world overruns) |"
    done
    echo
    echo "Replay file after the recorded run: $rec_size bytes."
    echo
    echo "Replay file size per hour of each demo world (5 minutes of world time recorded headless by \`viv sim --record\`, no inputs, ×12):"
    echo
    echo "| world | ticks recorded | bytes | MiB per hour |"
    echo "|---|---|---|---|"
    printf '%s' "$sizes"
} | tee bench/out/record.md
