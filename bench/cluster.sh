#!/bin/sh
# bench/cluster.sh [BIN] — issue 18's benchmark (docs/CLUSTER.md): one world node and 1, 2 and 4
# relays joined through a redis-server of its own, with 1,000 viewers in all spread evenly over the
# relays (one viv bot per relay), and, in the same run, a plain vivd (no --cluster) with the
# 1,000 viewers itself.
#
# Reports, per configuration:
#   the node's CPU per tick: Δ(its user+sys CPU) / Δ(ticks) from its own stats replies, taken by
#     a viv bot with no viewers on the node while the relays' viewers are connected. It should stay
#     flat as relays and viewers are added: the node encodes each stream's message once per tick
#     and publishes it once, whatever the number of relays and viewers.
#   each relay's CPU per viewer-frame: Δ(its CPU) / Δ(frames it sent), from its stats replies
#     (viv bot's cpu_us_per_viewer_frame), beside the plain vivd's, taken the same way.
#   Redis's CPU while the node's bot measured (utime+stime from /proc), and the verifying
#     viewers' hash mismatches (5 per bot rebuild every frame; must be 0).
# Also a row of the node alone in the cluster (no relay, no viewer): what a tick costs when
# nothing is encoded or published.
#
# The servers (node, relays, redis-server) run pinned to CPU 0 and the bots to CPU 1 (taskset,
# when there is one). Prints a Markdown block for bench/RESULTS.md, also kept in bench/out/cluster.md.
#   BIN              directory holding viv and vivd (default bin)
#   CLUSTER_SECONDS  measured seconds of the viewers' bots per configuration (default 20; the
#                    node's bot measures CLUSTER_SECONDS - 8 inside that window)
#   CLUSTER_VIEWERS  viewers in all (default 1000)
set -eu
secs=${CLUSTER_SECONDS:-20}
viewers=${CLUSTER_VIEWERS:-1000}
if [ "$secs" -lt 10 ]; then
    echo "cluster.sh: CLUSTER_SECONDS must be at least 10 (the node's bot measures 8 s less)" >&2
    exit 2
fi
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_init "${1:-}"
token="cluster-bench-player"
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
    echo "$bench_name: redis-server or redis-cli is not installed (scripts/deps.sh installs redis-server)" >&2
    exit 1
fi
world="sand:seed=1"

# Every process this script starts, to stop at the end whatever happens: vivd members and
# redis-server get SIGTERM, then SIGKILL after 10 s.
pids=""
stop_pid() {
    kill -TERM "$1" 2>/dev/null || return 0
    i=0
    while kill -0 "$1" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    kill -KILL "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}
stop_all() {
    for p in $pids; do stop_pid "$p"; done
    pids=""
}
trap 'stop_all; stop_vivd; rm -rf "$tmp"' EXIT

# A free loopback port for redis-server (which takes no port 0): bound, read, let go.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_redis: a fresh redis-server, no persistence, in $tmp/redis; sets $redis_url, $redis_pid.
start_redis() {
    rport=$(free_port)
    rm -rf "$tmp/redis"
    mkdir -p "$tmp/redis"
    $server_pin redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no \
        --dir "$tmp/redis" --daemonize no > "$tmp/redis/log" 2>&1 &
    redis_pid=$!
    pids="$pids $redis_pid"
    i=0
    until [ "$(timeout 1 redis-cli -p "$rport" ping 2>/dev/null)" = PONG ]; do
        i=$((i + 1))
        if [ $i -gt 100 ] || ! kill -0 "$redis_pid" 2>/dev/null; then
            echo "$bench_name: redis-server did not start: $(cat "$tmp/redis/log")" >&2
            exit 1
        fi
        sleep 0.05
    done
    redis_url="redis://127.0.0.1:$rport"
}

# member NAME ARGS...: a vivd (a cluster member when ARGS say so), its port in $member_port.
member() {
    name=$1
    shift
    rm -f "$tmp/$name.port"
    # shellcheck disable=SC2086
    env VIVD_PLAYER_TOKEN=$token $server_pin "$bin/vivd" --listen 127.0.0.1:0 --no-http --quiet \
        --no-record --max-clients 5000 --port-file "$tmp/$name.port" "$@" 2>>"$tmp/$name.log" &
    mpid=$!
    pids="$pids $mpid"
    i=0
    while [ ! -s "$tmp/$name.port" ]; do
        i=$((i + 1))
        if [ $i -gt 1000 ] || ! kill -0 "$mpid" 2>/dev/null; then
            echo "$bench_name: vivd $name did not start; its log:" >&2
            cat "$tmp/$name.log" >&2
            exit 1
        fi
        sleep 0.01
    done
    member_port=$(cat "$tmp/$name.port")
}

# Wait until a member serves the node's world (one frame through it, within 10 s).
serves() {
    timeout 10 "$bin/viv" view --host "127.0.0.1:$1" --frames 1 --size 40x12 > /dev/null 2>&1
}

# /proc's user+system CPU of a process, in ms.
cpu_ms() {
    awk -v hz="$(getconf CLK_TCK)" '{ print int(($14 + $15) * 1000 / hz) }' "/proc/$1/stat"
}

# One configuration: R relays (0: the node alone, no viewers). Results in $tmp/c$R-*.json and
# $tmp/c$R.redis (Redis's CPU ms over the node's window).
run_cluster() {
    R=$1
    start_redis
    member "c$R-node" --cluster "$redis_url" --node node --world "$world"
    node_port=$member_port
    k=1
    while [ $k -le "$R" ]; do
        member "c$R-relay$k" --cluster "$redis_url" --node "relay$k" --relay
        eval "relay_port_$k=\$member_port"
        k=$((k + 1))
    done
    k=1
    while [ $k -le "$R" ]; do
        eval "p=\$relay_port_$k"
        if ! serves "$p"; then
            echo "$bench_name: relay $k does not serve the node's world; its log:" >&2
            cat "$tmp/c$R-relay$k.log" >&2
            exit 1
        fi
        k=$((k + 1))
    done
    bots=""
    k=1
    while [ $k -le "$R" ]; do
        eval "p=\$relay_port_$k"
        n=$((viewers / R))
        [ $k -le $((viewers % R)) ] && n=$((n + 1))
        # shellcheck disable=SC2086
        $bot_pin "$bin/viv" bot --host "127.0.0.1:$p" --clients "$n" --verify 5 --seconds "$secs" --json \
            > "$tmp/c$R-relay$k.json" 2> "$tmp/c$R-relay$k.err" &
        bots="$bots $!"
        k=$((k + 1))
    done
    [ "$R" -gt 0 ] && sleep 4             # the viewers' ramp-up
    r0=$(cpu_ms "$redis_pid")
    if ! $bot_pin "$bin/viv" bot --host "127.0.0.1:$node_port" --clients 0 --seconds $((secs - 8)) --json \
            > "$tmp/c$R-node.json" 2> "$tmp/c$R-node.err"; then
        echo "$bench_name: the node's bot failed:" >&2
        cat "$tmp/c$R-node.err" >&2
        exit 1
    fi
    r1=$(cpu_ms "$redis_pid")
    echo $((r1 - r0)) > "$tmp/c$R.redis"
    k=1
    for b in $bots; do
        if ! wait "$b"; then
            echo "$bench_name: viv bot on relay $k failed:" >&2
            cat "$tmp/c$R-relay$k.err" >&2
            exit 1
        fi
        k=$((k + 1))
    done
    stop_all
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
t0=$(date -u +%Y-%m-%dT%H:%M:%SZ)
run_cluster 0
run_cluster 1
run_cluster 2
run_cluster 4
# The plain vivd of the same run: the same world, the 1,000 viewers on it.
member plain --world "$world"
plain_port=$member_port
bot_json plain "127.0.0.1:$plain_port" --clients "$viewers" --verify 5
stop_all
load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)

# µs of the node's CPU per tick over its bot's window.
per_tick() {
    awk -v c="$(field "$1" server cpu_us)" -v t="$(field "$1" server world ticks)" \
        'BEGIN { if (t > 0) printf "%.1f\n", c / t; else print "-" }'
}

# The cells of one relay's bot: µs per viewer-frame, viewers ok, frames/s received, mismatches.
relay_cells() {
    printf '%s µs (%s viewers, %s frames/s, %s mismatches)' "$(field "$1" server cpu_us_per_viewer_frame)" \
        "$(field "$1" connections viewers ok)" "$(field "$1" frames per_second)" "$(field "$1" verify mismatches)"
}

row() {
    R=$1
    relays=""
    k=1
    while [ $k -le "$R" ]; do
        relays="$relays${relays:+; }$(relay_cells "c$R-relay$k")"
        k=$((k + 1))
    done
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$R" "$([ "$R" -gt 0 ] && echo "$viewers" || echo 0)" \
        "$(per_tick "c$R-node")" "$(field "c$R-node" server world ticks)" "$(field "c$R-node" server cpu_percent)" \
        "$(awk -v ms="$(cat "$tmp/c$R.redis")" -v s="$(field "c$R-node" seconds)" 'BEGIN { printf "%.1f", ms / s / 10 }')" \
        "${relays:--}"
}

mkdir -p bench/out
{
    echo "### $(date -u +%Y-%m-%d) — cluster: one node, 1, 2 and 4 relays, $viewers viewers: $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo unknown CPU), $(nproc) cores"
    echo
    echo "Date: $t0. Command: \`make bench\` (bench/run.sh: \`sh bench/cluster.sh $bin\`), $(redis-server --version | cut -d' ' -f1-3)."
    echo "World \`$world\` on the node (\`vivd --cluster URL --node node --no-record\`); relays \`vivd --cluster URL --node relayK --relay\`;"
    echo "${server_pin:+all servers and redis-server under \`$server_pin\`, the bots under \`$bot_pin\`; }one \`viv bot --host RELAY --clients N --verify 5 --seconds $secs\` per relay"
    echo "(N = $viewers / relays), and \`viv bot --host NODE --clients 0 --seconds $((secs - 8))\` on the node from 4 s into their window."
    echo "Node µs/tick = Δ(node user+sys CPU) / Δ(ticks) from the node's stats; relay µs/viewer-frame = Δ(relay CPU) / Δ(frames it sent);"
    echo "Redis % = its /proc CPU over the node's window. Load average before and after: $load_before / $load_after (other work on the machine skews every number)."
    echo
    echo "| relays | viewers | node µs CPU / tick | node ticks measured | node CPU % | Redis CPU % | each relay: µs CPU / viewer-frame (viewers, frames/s received, hash mismatches) |"
    echo "|---|---|---|---|---|---|---|"
    row 0
    row 1
    row 2
    row 4
    echo
    echo "A plain vivd (no --cluster) with the $viewers viewers, same run: $(field plain server cpu_us_per_viewer_frame) µs CPU / viewer-frame"
    echo "($(field plain connections viewers ok) viewers, $(field plain frames per_second) frames/s received, $(field plain verify mismatches) mismatches,"
    echo "$(field plain server cpu_percent) % of a core; \`viv bot --clients $viewers --verify 5 --seconds $secs\`)."
    for f in "$tmp"/*.log; do
        if [ -s "$f" ]; then
            echo
            echo "$(basename "$f" .log) warnings: $(grep -c . "$f") line(s), e.g. \`$(head -n 1 "$f" | sed 's/`//g')\`"
        fi
    done
} | tee bench/out/cluster.md
