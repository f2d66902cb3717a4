# bench/lib.sh — what the vivd benchmarks driven by `viv bot` share (bench/fanout.sh,
# bench/ws.sh), sourced as `. "$(dirname "$0")/lib.sh"` and then `bench_init "${1:-}"` (BIN: the
# directory holding viv and vivd, default bin; afterwards the script runs from the repository's
# root, with $bin, $server_pin and $bot_pin set, and $tmp a scratch directory that goes, with any
# vivd still running, when the script exits). The script then sets
#   vivd_cmd   the vivd command line (with --port-file "$tmp/port", and --http-port-file
#              "$tmp/hport" when it serves HTTP)
#   token      the player token vivd is started with
# and uses start_vivd / stop_vivd, bot_json (one bot run, its JSON report kept), field (a value of
# that report), per_frame and bytes_per_frame.
# shellcheck shell=sh
# shellcheck disable=SC2154,SC2034  # vivd_cmd, token, secs come from the script; port goes to it

# The script's name, for messages.
bench_name=$(basename "$0")

# bench_init BIN: $bin (relative to where the script was started), the repository's root as the
# working directory, both programs there; vivd on CPU 0 and the bot on CPU 1, when there are two
# and taskset; $tmp and the traps that clean up.
bench_init() {
    bin=$1
    case $bin in
        "") ;;
        /*) ;;
        *) bin="$(pwd)/$bin" ;;
    esac
    cd "$(dirname "$0")/.." || exit 1
    bin=${bin:-bin}
    for exe in "$bin/viv" "$bin/vivd"; do
        if [ ! -x "$exe" ]; then
            echo "$bench_name: $exe not found; build with: make bin/viv bin/vivd" >&2
            exit 1
        fi
    done
    server_pin="" bot_pin=""
    if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
        server_pin="taskset -c 0"
        bot_pin="taskset -c 1"
    fi
    tmp=$(mktemp -d "/tmp/viv-$(basename "$0" .sh).XXXXXX")
    trap 'stop_vivd; rm -rf "$tmp"' EXIT
    trap 'exit 130' INT TERM
}

vivd_pid=""
stop_vivd() {
    if [ -n "$vivd_pid" ]; then
        kill -TERM "$vivd_pid" 2>/dev/null || true
        wait "$vivd_pid" 2>/dev/null || true
        vivd_pid=""
    fi
}

# start_vivd LOG PORTFILE...: a fresh vivd (its stderr appended to LOG), waiting until it has
# written every port file; then $port holds the first one's port. The environment is $vivd_env
# (default: the player token), and $vivd_extra is appended to $vivd_cmd (e.g. --io-threads 0).
start_vivd() {
    log=$1
    shift
    for f in "$@"; do rm -f "$f"; done
    # shellcheck disable=SC2086  # the command line is words on purpose
    env ${vivd_env:-VIVD_PLAYER_TOKEN=$token} $server_pin $vivd_cmd ${vivd_extra:-} 2>>"$log" &
    vivd_pid=$!
    for f in "$@"; do
        i=0
        while [ ! -s "$f" ]; do
            i=$((i + 1))
            if [ $i -gt 500 ] || ! kill -0 "$vivd_pid" 2>/dev/null; then
                echo "$bench_name: vivd did not start; its log:" >&2
                cat "$log" >&2
                exit 1
            fi
            sleep 0.01
        done
    done
    port=$(cat "$1")
}

# bot_json NAME ADDR FLAGS...: the bot against ADDR for $secs seconds, its JSON report kept in
# $tmp/NAME.json; a failed run stops vivd and the script, with the bot's own words.
bot_json() {
    name=$1
    addr=$2
    shift 2
    # shellcheck disable=SC2086
    if ! $bot_pin "$bin/viv" bot --host "$addr" --seconds "$secs" --json "$@" \
            >"$tmp/$name.json" 2>"$tmp/$name.err"; then
        echo "$bench_name: viv bot --host $addr $* failed:" >&2
        cat "$tmp/$name.err" >&2
        stop_vivd
        exit 1
    fi
}

# A value of a run's one-line JSON report by its key path: field RUN server world overruns.
# A small JSON walker in awk (objects, strings, numbers, true/false/null: all viv bot writes).
# shellcheck disable=SC2016  # awk code, not shell
json_awk='
function skipstr(   c) {            # at an opening quote; returns the string, i after it
    out = ""; i++
    while (i <= n) {
        c = substr(s, i, 1)
        if (c == "\\") { out = out substr(s, i, 2); i += 2; continue }
        i++
        if (c == "\"") return out
        out = out c
    }
    return out
}
{
    s = $0; n = length(s); i = 1; d = 0
    while (i <= n) {
        c = substr(s, i, 1)
        if (c == "{") { d++; i++; continue }
        if (c == "}") { d--; i++; continue }
        if (c == "," || c == " ") { i++; continue }
        if (c != "\"") { i++; continue }
        key[d] = skipstr()
        i++                                    # the colon
        path = key[1]
        for (k = 2; k <= d; k++) path = path "." key[k]
        c = substr(s, i, 1)
        if (c == "{") continue
        if (c == "\"") v = skipstr()
        else { v = ""; while (i <= n && substr(s, i, 1) !~ /[,}]/) { v = v substr(s, i, 1); i++ } }
        if (path == want) { print (v == "null" ? "-" : v); exit }
    }
}'
field() {
    f="$tmp/$1.json"
    shift
    want=$1
    shift
    for k in "$@"; do want="$want.$k"; done
    awk -v want="$want" "$json_awk" "$f"
}

per_frame() {    # per_frame RUN cpu_user_us: that CPU counter over the frames sent, in µs
    awk -v c="$(field "$1" server "$2")" -v f="$(field "$1" server frames_sent)" \
        'BEGIN { if (f > 0) printf "%.3f\n", c / f; else print "-" }'
}

bytes_per_frame() {
    awk -v b="$(field "$1" server bytes_sent)" -v f="$(field "$1" server frames_sent)" \
        'BEGIN { if (f > 0) printf "%.0f\n", b / f; else print "-" }'
}

# The server's cells of a run's table row: µs CPU per viewer-frame, of it user and sys, CPU % of
# a core, lateness p50, p99 and max (µs), overruns.
server_cells() {
    printf '%s | %s | %s | %s | %s | %s | %s | %s' \
        "$(field "$1" server cpu_us_per_viewer_frame)" \
        "$(per_frame "$1" cpu_user_us)" \
        "$(per_frame "$1" cpu_sys_us)" \
        "$(field "$1" server cpu_percent)" \
        "$(field "$1" server world late_p50_us)" \
        "$(field "$1" server world late_p99_us)" \
        "$(field "$1" server world late_max_us)" \
        "$(field "$1" server world overruns)"
}
