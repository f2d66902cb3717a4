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
# The node (and the plain vivd) run pinned to CPU 0, and the relays, redis-server and the bots to
# CPU 1 (taskset, when there is one). Each configuration runs twice, in two rounds of opposite
# order (0, 1, 2, 4 relays; then 4, 2, 1). Prints a Markdown block for bench/RESULTS.md, also kept in bench/out/cluster.md.
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
# The node alone on the first CPU, so that its CPU per tick is not mixed up with the relays';
# the relays, Redis and the bots on the second (lib.sh's pins: CPU 0 and CPU 1).
node_pin=$server_pin
relay_pin=$bot_pin

# Every process this script starts, to stop at the end whatever happens, the last started first
# (the members before their redis-server): SIGTERM, then SIGKILL after 10 s.
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
    $relay_pin redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no \
        --dir "$tmp/redis" --daemonize no > "$tmp/redis/log" 2>&1 &
    redis_pid=$!
    pids="$redis_pid $pids"
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

# member NAME PIN ARGS...: a vivd (a cluster member when ARGS say so) under PIN (a taskset
# command, or ""), its port in $member_port.
member() {
    name=$1
    pin=$2
    shift 2
    rm -f "$tmp/$name.port"
    # shellcheck disable=SC2086
    env VIVD_PLAYER_TOKEN=$token $pin "$bin/vivd" --listen 127.0.0.1:0 --no-http --quiet \
        --no-record --max-clients 5000 --port-file "$tmp/$name.port" "$@" 2>>"$tmp/$name.log" &
    mpid=$!
    pids="$mpid $pids"
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

# One configuration: R relays (0: the node alone, no viewers), round T. Results in
# $tmp/cR.T-*.json and $tmp/cR.T.redis (Redis's CPU ms over the node's window).
run_cluster() {
    R=$1
    c="c$1.$2"
    start_redis
    member "$c-node" "$node_pin" --cluster "$redis_url" --node node --world "$world"
    node_port=$member_port
    k=1
    while [ $k -le "$R" ]; do
        member "$c-relay$k" "$relay_pin" --cluster "$redis_url" --node "relay$k" --relay
        eval "relay_port_$k=\$member_port"
        k=$((k + 1))
    done
    k=1
    while [ $k -le "$R" ]; do
        eval "p=\$relay_port_$k"
        if ! serves "$p"; then
            echo "$bench_name: relay $k does not serve the node's world; its log:" >&2
            cat "$tmp/$c-relay$k.log" >&2
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
            > "$tmp/$c-relay$k.json" 2> "$tmp/$c-relay$k.err" &
        bots="$bots $!"
        k=$((k + 1))
    done
    [ "$R" -gt 0 ] && sleep 4             # the viewers' ramp-up
    r0=$(cpu_ms "$redis_pid")
    # shellcheck disable=SC2086
    if ! $bot_pin "$bin/viv" bot --host "127.0.0.1:$node_port" --clients 0 --seconds $((secs - 8)) --json \
            > "$tmp/$c-node.json" 2> "$tmp/$c-node.err"; then
        echo "$bench_name: the node's bot failed:" >&2
        cat "$tmp/$c-node.err" >&2
        exit 1
    fi
    r1=$(cpu_ms "$redis_pid")
    echo $((r1 - r0)) > "$tmp/$c.redis"
    k=1
    for b in $bots; do
        if ! wait "$b"; then
            echo "$bench_name: viv bot on relay $k failed:" >&2
            cat "$tmp/$c-relay$k.err" >&2
            exit 1
        fi
        k=$((k + 1))
    done
    stop_all
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
t0=$(date -u +%Y-%m-%dT%H:%M:%SZ)
# Two rounds, the second in the opposite order, so that a drift in the machine's load shows
# as a difference between the rounds rather than as a trend across relay counts.
run_cluster 0 1
run_cluster 1 1
run_cluster 2 1
run_cluster 4 1
run_cluster 4 2
run_cluster 2 2
run_cluster 1 2
# The plain vivd of the same run: the same world, the 1,000 viewers on it, pinned as the node.
member plain "$node_pin" --world "$world"
plain_port=$member_port
bot_json plain "127.0.0.1:$plain_port" --clients "$viewers" --verify 5
stop_all
load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)

# µs of the node's CPU (or of it user or sys: cpu_us, cpu_user_us, cpu_sys_us) per tick over
# its bot's window.
per_tick() {
    awk -v c="$(field "$1" server "${2:-cpu_us}")" -v t="$(field "$1" server world ticks)" \
        'BEGIN { if (t > 0) printf "%.1f\n", c / t; else print "-" }'
}

# Over the R relays of a configuration: the mean µs CPU per viewer-frame, the viewers
# connected, and the verifying viewers' hash mismatches.
relays_mean() {
    k=1 sum=0 ok=0 mism=0
    while [ $k -le "$2" ]; do
        sum=$(awk -v a="$sum" -v b="$(field "$1-relay$k" server cpu_us_per_viewer_frame)" 'BEGIN { print a + b }')
        ok=$((ok + $(field "$1-relay$k" connections viewers ok)))
        mism=$((mism + $(field "$1-relay$k" verify mismatches)))
        k=$((k + 1))
    done
    case $3 in
        cpu) awk -v s="$sum" -v n="$2" 'BEGIN { printf "%.2f\n", s / n }' ;;
        ok) echo "$ok" ;;
        mism) echo "$mism" ;;
    esac
}

redis_pct() {
    awk -v ms="$(cat "$tmp/$1.redis")" -v s="$(field "$1-node" seconds)" 'BEGIN { printf "%.1f", ms / s / 10 }'
}

row() {
    R=$1
    a="c$R.1" b="c$R.2"
    if [ "$R" = 0 ]; then
        printf '| 0 | 0 | %s | %s / %s | %s | %s | - | - |\n' "$(per_tick "$a-node")" "$(per_tick "$a-node" cpu_user_us)" \
            "$(per_tick "$a-node" cpu_sys_us)" "$(field "$a-node" server world ticks)" "$(redis_pct "$a")"
        return
    fi
    printf '| %s | %s + %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %s |\n' "$R" \
        "$(relays_mean "$a" "$R" ok)" "$(relays_mean "$b" "$R" ok)" \
        "$(per_tick "$a-node")" "$(per_tick "$b-node")" "$(per_tick "$a-node" cpu_user_us)" "$(per_tick "$a-node" cpu_sys_us)" \
        "$(field "$a-node" server world ticks)" "$(field "$b-node" server world ticks)" \
        "$(redis_pct "$a")" "$(redis_pct "$b")" \
        "$(relays_mean "$a" "$R" cpu)" "$(relays_mean "$b" "$R" cpu)" \
        "$(($(relays_mean "$a" "$R" mism) + $(relays_mean "$b" "$R" mism)))"
}

# The node's µs per tick with R relays, both rounds' mean.
node_mean() {
    awk -v a="$(per_tick "c$1.1-node")" -v b="$(per_tick "c$1.2-node")" 'BEGIN { print (a + b) / 2 }'
}

mkdir -p bench/out
{
    echo "### $(date -u +%Y-%m-%d) — cluster: one node, 1, 2 and 4 relays, $viewers viewers: $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo unknown CPU), $(nproc) cores"
    echo
    echo "Date: $t0. Command: \`make bench\` (bench/run.sh: \`sh bench/cluster.sh $bin\`), $(redis-server --version | cut -d' ' -f1-3)."
    echo "World \`$world\` on the node (\`vivd --cluster URL --node node --no-record\`); relays \`vivd --cluster URL --node relayK --relay\`;"
    echo "${node_pin:+the node (and the plain vivd) under \`$node_pin\`, the relays, redis-server and the bots under \`$relay_pin\`; }one"
    echo "\`viv bot --host RELAY --clients N --verify 5 --seconds $secs\` per relay (N = $viewers / relays), and \`viv bot --host NODE --clients 0"
    echo "--seconds $((secs - 8))\` on the node from 4 s into their window. Each configuration twice: rounds 1 (0, 1, 2, 4 relays) and 2 (4, 2, 1)."
    echo "Node µs/tick = Δ(node user+sys CPU) / Δ(ticks) from the node's stats; relay µs/viewer-frame = Δ(relay CPU) / Δ(frames it sent),"
    echo "the mean over the relays; Redis % = its /proc CPU over the node's window. Load average before and after: $load_before / $load_after"
    echo "(other work on this shared machine skews every number; ratios within a round are the more trustworthy)."
    echo
    echo "| relays | viewers connected (round 1 + 2) | node µs CPU / tick (round 1 / 2) | of it user / sys (round 1) | node ticks measured | Redis CPU % of a core | relay µs CPU / viewer-frame (round 1 / 2) | hash mismatches |"
    echo "|---|---|---|---|---|---|---|---|"
    row 0
    row 1
    row 2
    row 4
    echo
    echo "The node's CPU per tick with 2 and 4 relays against 1 (both rounds' mean): $(awk -v a="$(node_mean 1)" -v b="$(node_mean 2)" -v c="$(node_mean 4)" 'BEGIN { printf "%.3fx and %.3fx", b / a, c / a }')."
    echo "A plain vivd (no --cluster) with the $viewers viewers, same run: $(field plain server cpu_us_per_viewer_frame) µs CPU / viewer-frame"
    echo "($(field plain connections viewers ok) viewers, $(field plain frames per_second) frames/s received, $(field plain verify mismatches) mismatches,"
    echo "$(field plain server cpu_percent) % of a core; \`viv bot --clients $viewers --verify 5 --seconds $secs\`)."
    echo "Bytes per viewer-frame sent: $(bytes_per_frame plain) by the plain vivd, $(bytes_per_frame c1.1-relay1) by the one relay."
    echo "Each relay's CPU % of a core, round 1, with 1, 2 and 4 relays: $(field c1.1-relay1 server cpu_percent); $(field c2.1-relay1 server cpu_percent), $(field c2.1-relay2 server cpu_percent);"
    echo "$(field c4.1-relay1 server cpu_percent), $(field c4.1-relay2 server cpu_percent), $(field c4.1-relay3 server cpu_percent), $(field c4.1-relay4 server cpu_percent)."
    for f in "$tmp"/*.log; do
        if [ -s "$f" ]; then
            echo
            echo "$(basename "$f" .log) warnings: $(grep -c . "$f") line(s), e.g. \`$(head -n 1 "$f" | sed 's/`//g')\`"
        fi
    done
} | tee bench/out/cluster.md
