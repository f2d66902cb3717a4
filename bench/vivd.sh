# shellcheck shell=sh disable=SC2154,SC2034  # sourced: $tmp is the caller's, $port is for it
# bench/vivd.sh — sourced by the benchmarks that run a vivd of their own (fanout.sh, loop.sh):
# start it in the background and wait for its port; stop it. Uses the caller's $tmp directory.
vivd_pid=""

# vivd_start WHO CMD...: run CMD (a vivd command line, possibly behind env or taskset, with
# --port-file "$tmp/port") in the background, its stderr appended to $tmp/vivd.log, and wait
# until it has written its port, into $port. WHO names the caller in the error.
vivd_start() {
    who=$1
    shift
    rm -f "$tmp/port"
    "$@" 2>>"$tmp/vivd.log" &
    vivd_pid=$!
    i=0
    while [ ! -s "$tmp/port" ]; do
        i=$((i + 1))
        if [ $i -gt 500 ] || ! kill -0 "$vivd_pid" 2>/dev/null; then
            echo "$who: vivd did not start; its log:" >&2
            cat "$tmp/vivd.log" >&2
            exit 1
        fi
        sleep 0.01
    done
    port=$(cat "$tmp/port")
}

# vivd_stop: SIGTERM the vivd started last, and wait for it.
vivd_stop() {
    if [ -n "$vivd_pid" ]; then
        kill -TERM "$vivd_pid" 2>/dev/null || true
        wait "$vivd_pid" 2>/dev/null || true
        vivd_pid=""
    fi
}
